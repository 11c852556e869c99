import { join } from 'node:path';
import { expect } from 'vitest';
import { SignJWT, type JWTPayload } from 'jose';
import { developmentSecret } from '../src/crypto/dev-secret.js';
import type { MfaAction } from '../src/domains/mfa/index.js';
import { verifiedAccount, type TestServer } from './harness.js';
import { expectError, rawRequest, type Reply } from './helpers.js';

// MFA step-up in tests: getting a real MFA token the way a client does, forging tokens with the
// server's key, and `expectMfaGuarded`, the check every /mfa route's tests call once:
//
//   await expectMfaGuarded(t, { method: 'POST', path: '/mfa/password/change', body: {…} }, 'password');

/** Requests a step-up code for the session, reads it from the captured mail and exchanges it. */
export async function mfaToken(t: TestServer, account: { sessionToken: string; email: string }, action: MfaAction): Promise<string> {
  const since = t.mail.messages.length;
  await t.client.mfaOtpRequest(account.sessionToken, { action });
  const mail = await t.mail.waitFor(account.email, 'mfaOtp', since);
  const { accessToken } = await t.client.mfaOtpVerify(account.sessionToken, { action, code: mail.code! });
  return accessToken;
}

/** The key the test server signs MFA tokens with (MFA_JWT_SECRET, else the data folder's). */
export function mfaSecret(t: TestServer): Uint8Array {
  const secret = t.config.mfa.jwtSecret || developmentSecret(join(t.config.server.dataDir, 'mfa-jwt-secret'));
  return new TextEncoder().encode(secret);
}

/** The claims a server-issued token carries (decoded, not verified: for forging variants of it). */
export function claimsOf(token: string): JWTPayload & { scope: string[]; stid: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as JWTPayload & { scope: string[]; stid: string };
}

/** Signs `claims` as a JWT with the given key and alg (HS256 and the server's key unless told). */
export function forgeMfaToken(t: TestServer, claims: JWTPayload, options: { key?: Uint8Array; alg?: string } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).sign(options.key ?? mfaSecret(t));
}

/** An unsigned token (`alg: none`, empty signature): RFC 7519 §6.1. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

export interface MfaRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** A body that passes the route's schema (the token is checked before the body is). */
  body?: unknown;
  query?: Record<string, string>;
}

/**
 * Proves an /mfa route refuses, with 401/223, every token it must not take: none, a session token
 * (Bearer and Hawk-looking), a token scoped to another action, expired, for another audience or
 * issuer, signed with another key, unsigned (`alg: none`), signed with another alg, without a
 * scope, and a valid one whose session has ended. A correctly forged token is the control: it
 * must get past authentication, so the checks above cannot pass by refusing everything.
 */
export async function expectMfaGuarded(t: TestServer, route: MfaRoute, action: MfaAction): Promise<void> {
  const send = (authorization?: string): Promise<Reply> =>
    rawRequest(t.url, route.method, route.path, { ...(route.body !== undefined ? { body: route.body } : {}), ...(route.query ? { query: route.query } : {}), ...(authorization !== undefined ? { authorization } : {}) });
  const refused = async (what: string, authorization?: string) => {
    const reply = await send(authorization);
    expect(reply.status, `${route.method} ${route.path} with ${what}: ${reply.text}`).toBe(401);
    expectError(reply, 'INVALID_MFA_TOKEN');
  };

  const acct = await verifiedAccount(t);
  const other: MfaAction = action === 'email' ? 'password' : 'email';
  const wrongScope = await mfaToken(t, acct, other);
  const good = claimsOf(wrongScope);
  const now = Math.floor((t.clock?.now() ?? Date.now()) / 1000);
  const base = { ...good, scope: [`mfa:${action}`], iat: now, exp: now + 600 };

  // The control: the right claims under the right key get past authentication.
  const control = await send(`Bearer ${await forgeMfaToken(t, base)}`);
  expect(control.body.errno, `control token for ${route.path} was refused: ${control.text}`).not.toBe(223);
  expect(control.status).not.toBe(401);

  await refused('no Authorization header');
  await refused('a session token', `Bearer fxs_${'0'.repeat(64)}`);
  await refused('a Hawk header', `Hawk id="${'0'.repeat(64)}", ts="${now}", nonce="abc", mac="AAAA"`);
  await refused('garbage', 'Bearer not.a.jwt');
  await refused(`a token scoped mfa:${other}`, `Bearer ${wrongScope}`);
  await refused('a token without scope', `Bearer ${await forgeMfaToken(t, { ...base, scope: undefined })}`);
  await refused('a scope that is a string', `Bearer ${await forgeMfaToken(t, { ...base, scope: `mfa:${action}` })}`);
  await refused('an expired token', `Bearer ${await forgeMfaToken(t, { ...base, iat: now - 700, exp: now - 1 })}`);
  await refused('another audience', `Bearer ${await forgeMfaToken(t, { ...base, aud: 'someone-else' })}`);
  await refused('another issuer', `Bearer ${await forgeMfaToken(t, { ...base, iss: 'accounts.example.org' })}`);
  await refused('another key', `Bearer ${await forgeMfaToken(t, base, { key: new TextEncoder().encode('x'.repeat(32)) })}`);
  await refused('alg none', `Bearer ${unsignedToken(base)}`);
  await refused('alg HS512 under the same key', `Bearer ${await forgeMfaToken(t, base, { alg: 'HS512' })}`);
  await refused('a token of another account', `Bearer ${await forgeMfaToken(t, { ...base, sub: '0'.repeat(32) })}`);

  // A real token dies with its session.
  const doomed = await verifiedAccount(t);
  const token = await mfaToken(t, doomed, action);
  await t.client.sessionDestroy(doomed.sessionToken);
  await refused('a token of an ended session', `Bearer ${token}`);

  // And with time, on the server's clock.
  if (t.clock) {
    const fresh = await mfaToken(t, acct, action);
    t.clock.advance((t.config.mfa.jwtLifetimeSeconds + 1) * 1000);
    await refused('a token past its lifetime', `Bearer ${fresh}`);
  }
}
