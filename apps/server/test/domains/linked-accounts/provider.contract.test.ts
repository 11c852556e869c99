import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { appleProvider } from '../../../src/domains/linked-accounts/providers/apple.js';
import { googleProvider } from '../../../src/domains/linked-accounts/providers/google.js';
import type { OidcDeps, OidcSettings } from '../../../src/domains/linked-accounts/providers/oidc.js';
import type { IdentityProvider } from '../../../src/domains/linked-accounts/providers/port.js';
import { LocalIssuer, strangerKey, unsignedToken } from './oidc-issuer.js';

// The provider port's contract (providers/port.ts): one suite every adapter passes, against a
// local OpenID provider standing in for the real one. The attacks: a token from another issuer,
// for another client, signed by another key or by none, expired, issued in the future, replayed
// with another nonce; and the provider failing us (keys unreachable), which is not the client's fault.

type Adapter = (settings: OidcSettings, deps: OidcDeps) => IdentityProvider;
const ADAPTERS: [string, Adapter][] = [['google', googleProvider], ['apple', appleProvider]];
const CLIENT = 'contract-client.example';

async function refusedOn(p: Promise<unknown>, field: string, message: RegExp) {
  const err = await p.then(() => null, (e: unknown) => e as { errno: number; output?: unknown; message: string; details?: unknown });
  expect(err, 'the token was accepted').not.toBeNull();
  expect(err!.errno).toBe(107);
  expect(JSON.stringify(err)).toContain(field);
  expect(err!.message).toMatch(message);
}

describe.each(ADAPTERS)('the %s adapter keeps the provider port\'s contract', (name, adapter) => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const issuer = new LocalIssuer(`https://${name}.contract.example`, CLIENT, () => clock.now());
  let provider: IdentityProvider;
  let settings: OidcSettings;
  const deps = { clock, toleranceSeconds: 30 };

  beforeAll(async () => {
    settings = { enabled: true, clientIds: ['another-client', CLIENT], issuers: [issuer.issuer], jwksUrl: await issuer.start() };
    provider = adapter(settings, deps);
  });
  afterAll(async () => issuer.stop());

  it('names itself and says it is enabled', () => {
    expect(provider.name).toBe(name);
    expect(provider.enabled).toBe(true);
  });

  it('turns a valid id_token into the person\'s identity', async () => {
    const token = await issuer.idToken('subject-1', { email: 'person@example.com' }, { lifetimeSeconds: 600 });
    expect(await provider.verifyIdToken(token, undefined)).toEqual({
      provider: name, subject: 'subject-1', email: 'person@example.com', emailVerified: true, privateEmail: false,
      expiresAt: (Math.floor(clock.now() / 1000) + 600) * 1000,
    });
  });

  it('reads an address the provider does not vouch for as unverified, and one too long as none', async () => {
    const unverified = await issuer.idToken('subject-2', { email: 'maybe@example.com', email_verified: false });
    expect(await provider.verifyIdToken(unverified, undefined)).toMatchObject({ email: 'maybe@example.com', emailVerified: false });
    const long = await issuer.idToken('subject-3', { email: `${'a'.repeat(250)}@example.com` });
    expect(await provider.verifyIdToken(long, undefined)).toMatchObject({ email: null, emailVerified: false });
  });

  it('checks the nonce when the client sent one', async () => {
    const token = await issuer.idToken('subject-4', { nonce: 'n-1' });
    expect(await provider.verifyIdToken(token, 'n-1')).toMatchObject({ subject: 'subject-4' });
    await refusedOn(provider.verifyIdToken(token, 'n-2'), 'nonce', /nonce/);
  });

  it('refuses tokens that fail a check, on idToken, saying which check', async () => {
    await refusedOn(provider.verifyIdToken(await issuer.idToken('s', { aud: 'someone-else' }), undefined), 'idToken', /audience/);
    await refusedOn(provider.verifyIdToken(await issuer.idToken('s', { iss: 'https://evil.example' }), undefined), 'idToken', /issuer/);
    await refusedOn(provider.verifyIdToken(await issuer.idToken('s', {}, { key: await strangerKey() }), undefined), 'idToken', /signature/);
    await refusedOn(provider.verifyIdToken(unsignedToken({ iss: issuer.issuer, aud: CLIENT, sub: 's' }), undefined), 'idToken', /RS256|signed/);
    await refusedOn(provider.verifyIdToken(await issuer.idToken('s', { aud: [CLIENT, 'someone-else'] }), undefined), 'idToken', /azp/);
    const future = Math.floor(clock.now() / 1000) + 3600;
    await refusedOn(provider.verifyIdToken(await issuer.idToken('s', { iat: future, exp: future + 600 }), undefined), 'idToken', /future/);
    const expired = await issuer.idToken('s', {}, { lifetimeSeconds: 60 });
    clock.advance(91_000);
    await refusedOn(provider.verifyIdToken(expired, undefined), 'idToken', /expired/);
  });

  it('answers 500/205 when the provider\'s keys cannot be had, and 503/202 when not enabled', async () => {
    const token = await issuer.idToken('s');
    const unreachable = adapter({ ...settings, jwksUrl: 'http://127.0.0.1:9/keys' }, deps);
    await expect(unreachable.verifyIdToken(token, undefined)).rejects.toMatchObject({ errno: 205 });
    const disabled = adapter({ ...settings, enabled: false }, deps);
    expect(disabled.enabled).toBe(false);
    await expect(disabled.verifyIdToken(token, undefined)).rejects.toMatchObject({ errno: 202 });
  });

  it('verifies notifications when it takes them: the provider\'s signature, at most a day old', async () => {
    if (!provider.verifyNotification) return;
    const event = await provider.verifyNotification(await issuer.notification({ type: 'email-disabled', sub: 'subject-5', email: 'relay@example.com' }));
    expect(event).toEqual({ type: 'email-disabled', subject: 'subject-5', email: 'relay@example.com' });
    const old = await issuer.notification({ type: 'account-delete', sub: 'subject-5' });
    clock.advance(86_400_000 + 60_000);
    await refusedOn(provider.verifyNotification(old), 'payload', /./);
    await refusedOn(provider.verifyNotification(await issuer.idToken('subject-5')), 'payload', /event/);
    await refusedOn(provider.verifyNotification(unsignedToken({ iss: issuer.issuer, aud: CLIENT, events: '{}' })), 'payload', /./);
  });
});
