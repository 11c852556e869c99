import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ERRORS, OAUTH_ERRORS, oauthTwin, type AuthErrorName } from '@tessera/errors';
import { deriveTokenKeys, TOKEN_TYPES } from '@tessera/protocol';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../harness.js';
import { rawRequest, type Reply } from '../helpers.js';
import { appFor, codeAt } from '../domains/two-step/two-step-helpers.js';

// Issue 22: every operation of openapi.json, walked with a session in each state, must answer what
// the route table (the operations' `x-auth`, shown in the portal's "Credentials and session states"
// page) says: a route that needs a session confirmed at the account's AAL refuses an unconfirmed
// one (400/138) and one confirmed by email on a two-step account (400/222), and lets AAL2 through;
// a route that accepts an unconfirmed session lets all three through; a route that takes another
// credential refuses a session token. Requests carry a body field no schema allows, so once
// authentication has passed the answer is 400/107 and no handler runs; routes without a body run
// their handler, so those that change the account are walked last, each on an account of its own.

/** `signed`: its strategies prove a credential in the body (an inbound webhook), not the Authorization header. */
type Op = { method: string; path: string; auth: XAuth; hasBody: boolean; oauthCatalogue: boolean; signed: boolean };
type XAuth = { strategies: string[]; optional?: boolean; session?: 'unconfirmed' | 'confirmed' | 'aal'; unconfirmed?: string };
type State = 'unconfirmed' | 'email' | 'aal2';
const STATES: State[] = ['unconfirmed', 'email', 'aal2'];

const doc = JSON.parse(readFileSync(new URL('../../../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { responses?: unknown; 'x-auth'?: XAuth; 'x-errors'?: { catalogue?: string }[]; requestBody?: unknown; security?: unknown[]; parameters?: { in: string; name: string; schema?: { pattern?: string; minLength?: number } }[] }>>;
};

function operations(): Op[] {
  const ops: Op[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op?.responses) continue;
      // Path parameters: a well-formed value where the schema has a pattern (authentication runs first anyway).
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const schema = op.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema;
        return schema?.pattern?.includes('0-9a-f') ? '0'.repeat(schema.minLength ?? 32) : 'walk';
      });
      const oauthCatalogue = (op['x-errors'] ?? []).some((e) => e.catalogue === 'oauth');
      // A route whose strategies name no header scheme (`security: []`) is proven by its body.
      const signed = op['x-auth']!.strategies.length > 0 && Array.isArray(op.security) && op.security.length === 0;
      ops.push({ method: method.toUpperCase(), path, auth: op['x-auth']!, hasBody: Boolean(op.requestBody), oauthCatalogue, signed });
    }
  }
  return ops;
}

/** The operations whose handler runs on this walk (no body to refuse) and that change the account. */
const changesAccount = (op: Op) => !op.hasBody && op.method !== 'GET';

const bearer = (sessionToken: string) => `Bearer ${TOKEN_TYPES.sessionToken.prefix}${deriveTokenKeys('sessionToken', sessionToken).tokenId}`;

/**
 * An account with two-step authentication on and three sessions: one that signed in and waits for
 * the second factor, one confirmed by email before two-step was turned on (AAL1), and the one that
 * turned it on (AAL2).
 */
async function world(t: TestServer): Promise<Record<State, string>> {
  const acct = await verifiedAccount(t, 'walking the route table');
  const { sessionToken: emailConfirmed } = await t.accounts.signIn(acct.email, acct.password);
  const before = await t.client.sessionStatus(emailConfirmed);
  if (!before.details.sessionVerified) throw new Error('expected the second session to start confirmed (a new account)');
  const { secret } = await t.client.totpCreate(acct.sessionToken, {});
  const app = appFor(secret);
  await t.client.totpSetupVerify(acct.sessionToken, { code: codeAt(t, app) });
  await t.client.totpSetupComplete(acct.sessionToken, {});
  const { sessionToken: unconfirmed } = await t.accounts.signIn(acct.email, acct.password);
  const states = {
    unconfirmed: await t.client.sessionStatus(unconfirmed),
    email: await t.client.sessionStatus(emailConfirmed),
    aal2: await t.client.sessionStatus(acct.sessionToken),
  };
  expect(states.unconfirmed.details).toMatchObject({ sessionVerified: false, sessionVerificationMeetsMinimumAAL: false });
  expect(states.email.details).toMatchObject({ sessionVerified: true, sessionVerificationMeetsMinimumAAL: false });
  expect(states.aal2.details).toMatchObject({ sessionVerified: true, sessionVerificationMeetsMinimumAAL: true });
  return { unconfirmed, email: emailConfirmed, aal2: acct.sessionToken };
}

const AUTH_REFUSALS = new Set<number>([AUTH_ERRORS.INVALID_TOKEN.errno, AUTH_ERRORS.SESSION_UNVERIFIED.errno, AUTH_ERRORS.INSUFFICIENT_AAL.errno]);
const errnoOf = (r: Reply) => (r.body as { errno?: number } | undefined)?.errno;
const describeReply = (r: Reply) => `${r.status}/${errnoOf(r) ?? '-'}`;

/** An auth-catalogue refusal as the route answers it (OAuth-server routes answer the OAuth twin). */
function refusal(op: Op, name: AuthErrorName): { status: number; errno: number } {
  const twin = op.oauthCatalogue ? oauthTwin(name) : null;
  const { status, errno } = twin ? OAUTH_ERRORS[twin] : AUTH_ERRORS[name];
  return { status, errno };
}

/** What the table says this state gets; null: authentication lets it through. */
function expected(op: Op, state: State): { status: number; errno: number } | null {
  const session = op.auth.session;
  if (!session) return null;
  if (state === 'unconfirmed' && session !== 'unconfirmed') return refusal(op, 'SESSION_UNVERIFIED');
  if (state === 'email' && session === 'aal') return refusal(op, 'INSUFFICIENT_AAL');
  return null;
}

async function call(t: TestServer, op: Op, authorization?: string): Promise<Reply> {
  return rawRequest(t.url, op.method, op.path, {
    ...(authorization ? { authorization } : {}),
    ...(op.hasBody ? { body: { walkingTheRouteTable: true } } : {}),
  });
}

function check(op: Op, state: State | 'none', reply: Reply): string | null {
  const where = `${op.method} ${op.path} with ${state === 'none' ? 'no token' : `a session (${state})`}: ${describeReply(reply)}`;
  if (reply.status >= 500) return `${where} — a server error`;
  // A signed route (Apple's notifications): no header, token or not, lets it through; the walk's
  // body carries no signed credential, so the body's schema refuses it first.
  if (op.signed) return reply.status >= 400 && reply.status !== 401 ? null : `${where} — a signed route answers its body's schema before its credential`;
  if (state === 'none') {
    // Without a token: a route that requires one refuses (401), a public or optional one does not ask.
    const requires = op.auth.strategies.length > 0 && !op.auth.optional;
    if (requires && reply.status !== 401) return `${where} — expected 401: the route requires ${op.auth.strategies.join(' or ')}`;
    if (!requires && (reply.status === 401 || [138, 222].includes(errnoOf(reply) ?? 0)) && reply.status !== 405) return `${where} — the table says no token is needed`;
    return null;
  }
  if (!op.auth.session) {
    // A session token on a route that takes none of the session strategies: refused, unless the
    // route takes no token (it is ignored) or its credential is optional.
    if (op.auth.strategies.length && !op.auth.optional && reply.status !== 401) return `${where} — a session token must not authenticate ${op.auth.strategies.join(', ')}`;
    if (!op.auth.strategies.length && [138, 222].includes(errnoOf(reply) ?? 0)) return `${where} — a public route answers a session-state error`;
    return null;
  }
  const want = expected(op, state);
  if (want) {
    if (reply.status !== want.status || errnoOf(reply) !== want.errno) return `${where} — the table (${op.auth.session}) says ${want.status}/${want.errno}`;
    return null;
  }
  if (reply.status === 401 || AUTH_REFUSALS.has(errnoOf(reply) ?? 0)) return `${where} — the table (${op.auth.session}) says this session is let through`;
  return null;
}

describe.each(httpDialects())('the route table holds for every route and session state (%s)', (dialect) => {
  let t: TestServer;
  const ops = operations();
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { RATE_LIMIT_ENABLED: 'false' } });
  });
  afterAll(() => t?.close());

  it('covers every operation of openapi.json, each with its x-auth', () => {
    expect(ops.length).toBeGreaterThan(100);
    for (const op of ops) expect(op.auth, `${op.method} ${op.path}`).toBeDefined();
    // A route that accepts an unconfirmed session says why (http/auth.ts refuses to start otherwise).
    for (const op of ops.filter((o) => o.auth.session === 'unconfirmed')) expect(op.auth.unconfirmed, `${op.method} ${op.path}`).toBeTruthy();
  });

  it('answers every route without a token, and with a session in each state, as the table says', async () => {
    const problems: string[] = [];
    const sessions = await world(t);
    const safe = ops.filter((op) => !changesAccount(op));
    for (const op of safe) {
      const p = check(op, 'none', await call(t, op));
      if (p) problems.push(p);
      for (const state of STATES) {
        const q = check(op, state, await call(t, op, bearer(sessions[state])));
        if (q) problems.push(q);
      }
    }
    // Routes that change the account when let through: each on a fresh account, AAL2 last.
    for (const op of ops.filter(changesAccount)) {
      const own = await world(t);
      const p = check(op, 'none', await call(t, op));
      if (p) problems.push(p);
      for (const state of STATES) {
        const q = check(op, state, await call(t, op, bearer(own[state])));
        if (q) problems.push(q);
      }
    }
    expect(problems).toEqual([]);
  });
});
