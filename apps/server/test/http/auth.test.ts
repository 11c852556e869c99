import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, hawkHeader, type TokenType } from '@tessera/protocol';
import { TesseraClient } from '@tessera/client';
import { createTestServer, httpDialects, newEmail, testSigningKey, type TestServer } from '../harness.js';
import { expectError, hex, rawRequest, type RawRequest, type Reply } from '../helpers.js';

// Token presentation (protocol.md §2.2), token lifetimes and single use (§2.1, spec 1 §4), on every
// dialect: prefixed Bearer ids, Hawk with MAC / payload hash / timestamp / nonce checks, expiry by a
// manual clock, and the 401 errnos of protocol.md §6.1 (109 signature, 110 token, 111 timestamp,
// 115 nonce).

const idOf = (type: TokenType, data: string) => deriveTokenKeys(type, data).tokenId;
const PREFIX: Record<TokenType, string> = {
  sessionToken: 'fxs_', keyFetchToken: 'fxk_', accountResetToken: 'fxar_', passwordForgotToken: 'fxpf_', passwordChangeToken: 'fxpc_',
};
const bearer = (type: TokenType, data: string) => `Bearer ${PREFIX[type]}${idOf(type, data)}`;

function send(s: TestServer, method: string, path: string, options: RawRequest = {}): Promise<Reply> {
  return rawRequest(s.url, method, path, options);
}

const expectInvalidToken = (r: Reply) => expectError(r, 'INVALID_TOKEN', 401);
const expectBadSignature = (r: Reply) => expectError(r, 'INVALID_REQUEST_SIGNATURE', 401);
function expectOk(r: Reply) {
  expect(r.status, r.text).toBe(200);
}

interface Account {
  email: string;
  authPW: string;
  uid: string;
  sessionToken: string;
  keyFetchToken?: string;
}

/** A v1 account with a random authPW (one scrypt, no client stretch); confirmed by its emailed code unless `verify: false`. */
async function account(s: TestServer, options: { verify?: boolean; keys?: boolean } = {}): Promise<Account> {
  const email = newEmail('auth');
  const authPW = hex(64);
  const since = s.mail.messages.length;
  const created = await s.client.accountCreate({ email, authPW, verificationMethod: 'email-otp' }, { keys: options.keys ?? false });
  if (options.verify !== false) {
    const { code } = await s.mail.waitFor(email, 'verifyShortCode', since);
    await s.client.sessionVerifyCode(created.sessionToken, { code: code! });
  }
  return { email, authPW, uid: created.uid, sessionToken: created.sessionToken, ...(created.keyFetchToken ? { keyFetchToken: created.keyFetchToken } : {}) };
}

/** A password forgot token and its emailed code. */
async function forgotToken(s: TestServer, email: string) {
  const since = s.mail.messages.length;
  const { passwordForgotToken } = await s.client.passwordForgotSendCode({ email });
  const { code } = await s.mail.waitFor(email, 'recoveryEmail', since);
  return { passwordForgotToken, code: code! };
}

async function resetToken(s: TestServer, email: string): Promise<string> {
  const forgot = await forgotToken(s, email);
  const { accountResetToken } = await s.client.passwordForgotVerifyCode(forgot.passwordForgotToken, { code: forgot.code });
  return accountResetToken;
}

async function changeToken(s: TestServer, a: Account): Promise<string> {
  const { passwordChangeToken } = await s.client.passwordChangeStart(a.sessionToken, { email: a.email, oldAuthPW: a.authPW });
  return passwordChangeToken;
}

/** A Hawk header signed by hand for a request to `s`. */
function hawk(s: TestServer, method: string, path: string, token: { type: TokenType; data: string }, extra: { payload?: string; ts?: number; nonce?: string; key?: string; url?: string } = {}) {
  const keys = deriveTokenKeys(token.type, token.data);
  return hawkHeader({
    method,
    url: extra.url ?? `${s.url}/v1${path}`,
    credentials: { id: keys.tokenId, key: extra.key ?? keys.authKey },
    ...(extra.payload !== undefined ? { payload: extra.payload, contentType: 'application/json' } : {}),
    ...(extra.ts !== undefined ? { ts: extra.ts } : {}),
    ...(extra.nonce !== undefined ? { nonce: extra.nonce } : {}),
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe.each(httpDialects())('token authentication (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect });
  });
  afterAll(async () => t?.close());

  describe('prefixed Bearer ids', () => {
    it('work for session (fxs_), keyFetch (fxk_), passwordChange (fxpc_), passwordForgot (fxpf_) and accountReset (fxar_) tokens', async () => {
      const a = await account(t, { keys: true });
      const status = await send(t, 'GET', '/session/status', { authorization: bearer('sessionToken', a.sessionToken) });
      expectOk(status);
      expect(status.body.uid).toBe(a.uid);

      const keys = await send(t, 'GET', '/account/keys', { authorization: bearer('keyFetchToken', a.keyFetchToken!) });
      expectOk(keys);
      expect(keys.body.bundle).toMatch(/^[0-9a-f]{192}$/);

      const change = await changeToken(t, a);
      const finish = await send(t, 'POST', '/password/change/finish', { authorization: bearer('passwordChangeToken', change), body: { authPW: hex(64), wrapKb: hex(64) } });
      expectOk(finish);

      const forgot = await forgotToken(t, a.email);
      const forgotStatus = await send(t, 'GET', '/password/forgot/status', { authorization: bearer('passwordForgotToken', forgot.passwordForgotToken) });
      expectOk(forgotStatus);
      expect(forgotStatus.body.tries).toBe(t.config.tokens.passwordForgotTries);
      expect(forgotStatus.body.ttl).toBeGreaterThan(0);

      const { accountResetToken } = await t.client.passwordForgotVerifyCode(forgot.passwordForgotToken, { code: forgot.code });
      const reset = await send(t, 'POST', '/account/reset', { authorization: bearer('accountResetToken', accountResetToken), body: { authPW: hex(64), sessionToken: true } });
      expectOk(reset);
      expect(reset.body.uid).toBe(a.uid);
      expect(reset.body.sessionToken).toMatch(/^[0-9a-f]{64}$/);
    });

    it('a Bearer with the wrong prefix for the route → 401/110', async () => {
      const a = await account(t, { verify: false, keys: true });
      const sessionId = idOf('sessionToken', a.sessionToken);
      const kftId = idOf('keyFetchToken', a.keyFetchToken!);
      for (const prefix of ['fxk_', 'fxar_', 'fxpf_', 'fxpc_', 'fxx_', '']) {
        expectInvalidToken(await send(t, 'GET', '/session/status', { authorization: `Bearer ${prefix}${sessionId}` }));
      }
      expectInvalidToken(await send(t, 'GET', '/account/keys', { authorization: `Bearer fxs_${kftId}` }));
      // The right prefix with another kind's id is an unknown token.
      expectInvalidToken(await send(t, 'GET', '/session/status', { authorization: `Bearer fxs_${kftId}` }));
      expectInvalidToken(await send(t, 'GET', '/account/keys', { authorization: `Bearer fxk_${sessionId}` }));
      // The session itself is fine.
      expectOk(await send(t, 'GET', '/session/status', { authorization: `Bearer fxs_${sessionId}` }));
    });

    it('a malformed Bearer or Authorization header → 401/110', async () => {
      const a = await account(t, { verify: false });
      const id = idOf('sessionToken', a.sessionToken);
      const malformed = [
        `Bearer fxs_${id.slice(1)}`, // 63 hex
        `Bearer fxs_${id}0`, // 65 hex
        `Bearer fxs_${id.toUpperCase()}`, // ids are lowercase
        `Bearer  fxs_${id}`, // two spaces
        `Bearer fxs-${id}`,
        `Bearer fxs_${a.sessionToken}`, // the token data, not its id
        `bearer fxs_${id}`,
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`fxs_:${id}`).toString('base64')}`,
        `fxs_${id}`,
        'Hawk',
        'Hawk id=',
      ];
      for (const authorization of malformed) {
        const r = await send(t, 'GET', '/session/status', { authorization });
        expect(r.status, `${authorization} → ${r.text}`).toBe(401);
        expect(r.body.errno, `${authorization} → ${r.text}`).toBe(110);
      }
      expectInvalidToken(await send(t, 'GET', '/session/status'));
      expectOk(await send(t, 'GET', '/session/status', { authorization: `Bearer fxs_${id}` }));
    });

    it('an unknown token → 401/110 (Bearer and Hawk)', async () => {
      expectInvalidToken(await send(t, 'GET', '/session/status', { authorization: `Bearer fxs_${hex(64)}` }));
      expectInvalidToken(await send(t, 'GET', '/account/keys', { authorization: `Bearer fxk_${hex(64)}` }));
      expectInvalidToken(await send(t, 'POST', '/account/reset', { authorization: `Bearer fxar_${hex(64)}`, body: { authPW: hex(64) } }));
      expectInvalidToken(await send(t, 'GET', '/password/forgot/status', { authorization: `Bearer fxpf_${hex(64)}` }));
      expectInvalidToken(await send(t, 'POST', '/password/change/finish', { authorization: `Bearer fxpc_${hex(64)}`, body: { authPW: hex(64), wrapKb: hex(64) } }));
      expectInvalidToken(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', { type: 'sessionToken', data: hex(64) }) }));
    });

    it('a destroyed session token → 401/110', async () => {
      const a = await account(t, { verify: false });
      const other = await t.client.sessionDuplicate(a.sessionToken);
      expectOk(await send(t, 'POST', '/session/destroy', { authorization: bearer('sessionToken', a.sessionToken), body: {} }));
      expectInvalidToken(await send(t, 'GET', '/session/status', { authorization: bearer('sessionToken', a.sessionToken) }));
      expectInvalidToken(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', { type: 'sessionToken', data: a.sessionToken }) }));
      // Only that session ended.
      expectOk(await send(t, 'GET', '/session/status', { authorization: bearer('sessionToken', other.sessionToken) }));
    });

    it('successful responses carry a Timestamp header (seconds)', async () => {
      const a = await account(t, { verify: false });
      const before = nowSeconds();
      const r = await send(t, 'GET', '/session/status', { authorization: bearer('sessionToken', a.sessionToken) });
      expectOk(r);
      const ts = r.headers.get('timestamp');
      expect(ts).toMatch(/^\d+$/);
      expect(Number(ts)).toBeGreaterThanOrEqual(before - 1);
      expect(Number(ts)).toBeLessThanOrEqual(nowSeconds() + 1);
    });
  });

  describe('Hawk', () => {
    let a: Account;
    const session = () => ({ type: 'sessionToken' as const, data: a.sessionToken });
    beforeAll(async () => {
      a = await account(t, { verify: false });
    });

    it('works for GET and for POST with a payload hash (SDK and by hand)', async () => {
      const client = t.newClient('hawk');
      const status = await client.sessionStatus(a.sessionToken);
      expect(status.uid).toBe(a.uid);
      const dup = await client.sessionDuplicate(a.sessionToken, { reason: 'hawk-test' });
      expect(dup.uid).toBe(a.uid);

      const r = await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', session()) });
      expectOk(r);
      expect(r.body.uid).toBe(a.uid);
      const payload = JSON.stringify({ reason: 'by-hand' });
      const header = hawk(t, 'POST', '/session/duplicate', session(), { payload });
      expect(header).toMatch(/ hash="/);
      const p = await send(t, 'POST', '/session/duplicate', { authorization: header, raw: payload });
      expectOk(p);
      expect(p.body.uid).toBe(a.uid);
      // A hash is optional (protocol.md §2.2): a POST signed without one is accepted.
      expectOk(await send(t, 'POST', '/session/duplicate', { authorization: hawk(t, 'POST', '/session/duplicate', session()), raw: payload }));
    });

    it('a tampered MAC or a signature over another request → 401/109', async () => {
      const good = hawk(t, 'GET', '/session/status', session());
      const mac = /mac="([^"]+)"/.exec(good)![1]!;
      const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: good.replace(mac, flipped) }));
      // Other id-bearing parts changed after signing: ts, nonce.
      const ts = /ts="(\d+)"/.exec(good)![1]!;
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: good.replace(`ts="${ts}"`, `ts="${Number(ts) + 1}"`) }));
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: good.replace(/nonce="[^"]+"/, 'nonce="other1"') }));
      // Signed for another path, method, port, host, or with another key.
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/recovery_email/status', session()) }));
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'POST', '/session/status', session()) }));
      const url = new URL(`${t.url}/v1/session/status`);
      url.port = String(Number(url.port) + 1);
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '', session(), { url: url.toString() }) }));
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '', session(), { url: `http://localhost:${new URL(t.url).port}/v1/session/status` }) }));
      expectBadSignature(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', session(), { key: hex(64) }) }));
      // The untampered header still works (it was never accepted, so its nonce is unused).
      expectOk(await send(t, 'GET', '/session/status', { authorization: good }));
    });

    it('a payload hash that does not match the body → 401/109', async () => {
      const signed = JSON.stringify({ reason: 'signed' });
      const header = hawk(t, 'POST', '/session/duplicate', session(), { payload: signed });
      expectBadSignature(await send(t, 'POST', '/session/duplicate', { authorization: header, raw: JSON.stringify({ reason: 'swapped' }) }));
      // Even a whitespace change is a different body.
      expectBadSignature(await send(t, 'POST', '/session/duplicate', { authorization: hawk(t, 'POST', '/session/duplicate', session(), { payload: signed }), raw: `${signed} ` }));
      // A hash over an empty payload with a body sent.
      expectBadSignature(await send(t, 'POST', '/session/duplicate', { authorization: hawk(t, 'POST', '/session/duplicate', session(), { payload: '' }), raw: signed }));
    });

    it('a replayed Hawk header → the second request gets 401/115', async () => {
      const header = hawk(t, 'GET', '/session/status', session());
      expectOk(await send(t, 'GET', '/session/status', { authorization: header }));
      expectError(await send(t, 'GET', '/session/status', { authorization: header }), 'INVALID_NONCE', 401);
      // POST too.
      const payload = JSON.stringify({});
      const post = hawk(t, 'POST', '/session/duplicate', session(), { payload });
      expectOk(await send(t, 'POST', '/session/duplicate', { authorization: post, raw: payload }));
      expectError(await send(t, 'POST', '/session/duplicate', { authorization: post, raw: payload }), 'INVALID_NONCE', 401);
      // A fresh nonce is fine.
      expectOk(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', session()) }));
    });

    it('a timestamp 10 minutes off → 401/111 with serverTime in seconds; within the window it is accepted', async () => {
      for (const offset of [-600, 600]) {
        const r = await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', session(), { ts: nowSeconds() + offset }) });
        expectError(r, 'INVALID_TIMESTAMP', 401);
        expect(Number.isInteger(r.body.serverTime)).toBe(true);
        expect(Math.abs((r.body.serverTime as number) - nowSeconds())).toBeLessThanOrEqual(2);
      }
      const skew = t.config.server.hawkSkewSeconds;
      expect(skew).toBeLessThan(600);
      expectOk(await send(t, 'GET', '/session/status', { authorization: hawk(t, 'GET', '/session/status', session(), { ts: nowSeconds() - skew + 5 }) }));
    });

    it('the SDK Hawk client recovers from a local clock 300 s off', async () => {
      for (const offset of [-300, 300]) {
        const skewed = new TesseraClient({ baseUrl: t.url, presentation: 'hawk', now: () => Date.now() / 1000 + offset });
        const status = await skewed.sessionStatus(a.sessionToken);
        expect(status.uid).toBe(a.uid);
        // Learnt once, the offset is kept: a POST with a payload also goes through.
        const dup = await skewed.sessionDuplicate(a.sessionToken, { reason: 'skewed' });
        expect(dup.uid).toBe(a.uid);
      }
    });
  });

  describe('single use', () => {
    let a: Account;
    beforeAll(async () => {
      a = await account(t);
    });

    it('an accountResetToken survives a request that fails validation and is spent by one that passes it, even if that fails', async () => {
      const token = await resetToken(t, a.email);
      const auth = bearer('accountResetToken', token);
      expectError(await send(t, 'POST', '/account/reset', { authorization: auth, body: { authPW: 'not hex' } }), 'INVALID_PARAMETER', 400);
      // Valid, but no recovery key matches: refused after the token is spent.
      const failing = { authPW: hex(64), wrapKb: hex(64), recoveryKeyId: hex(32) };
      expectError(await send(t, 'POST', '/account/reset', { authorization: auth, body: failing }), 'RECOVERY_KEY_NOT_FOUND', 400);
      expectInvalidToken(await send(t, 'POST', '/account/reset', { authorization: auth, body: { authPW: hex(64) } }));
      // The password is unchanged: the old authPW still proves it.
      const again = await t.client.passwordChangeStart(a.sessionToken, { email: a.email, oldAuthPW: a.authPW });
      expect(again.passwordChangeToken).toMatch(/^[0-9a-f]{64}$/);
    });

    it('an accountResetToken presented twice at once is used by one request only', async () => {
      const token = await resetToken(t, a.email);
      const auth = bearer('accountResetToken', token);
      const body = { authPW: hex(64), wrapKb: hex(64), recoveryKeyId: hex(32) };
      const replies = await Promise.all([0, 1, 2].map(() => send(t, 'POST', '/account/reset', { authorization: auth, body })));
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses, replies.map((r) => r.text).join('\n')).toEqual([400, 401, 401]);
      for (const r of replies.filter((x) => x.status === 401)) expect(r.body.errno).toBe(110);
    });

    it('a passwordChangeToken survives a malformed finish and is spent by a valid one, even if that fails', async () => {
      const token = await changeToken(t, a);
      const auth = bearer('passwordChangeToken', token);
      expectError(await send(t, 'POST', '/password/change/finish', { authorization: auth, body: { authPW: hex(64) } }), 'MISSING_PARAMETER', 400);
      // Valid, but naming no session of this account: refused after the token is spent.
      expectInvalidToken(await send(t, 'POST', '/password/change/finish', { authorization: auth, body: { authPW: hex(64), wrapKb: hex(64), sessionToken: hex(64) } }));
      expectInvalidToken(await send(t, 'POST', '/password/change/finish', { authorization: auth, body: { authPW: hex(64), wrapKb: hex(64) } }));
      // Hawk can't revive it either.
      const payload = JSON.stringify({ authPW: hex(64), wrapKb: hex(64) });
      expectInvalidToken(await send(t, 'POST', '/password/change/finish', { authorization: hawk(t, 'POST', '/password/change/finish', { type: 'passwordChangeToken', data: token }, { payload }), raw: payload }));
    });

    it('a keyFetchToken is kept after a 104 and consumed by a successful GET /account/keys', async () => {
      const email = newEmail('kft');
      const since = t.mail.messages.length;
      const created = await t.client.accountCreate({ email, authPW: hex(64), verificationMethod: 'email-otp' }, { keys: true });
      const auth = bearer('keyFetchToken', created.keyFetchToken!);
      expectError(await send(t, 'GET', '/account/keys', { authorization: auth }), 'ACCOUNT_UNVERIFIED', 400);
      expectError(await send(t, 'GET', '/account/keys', { authorization: auth }), 'ACCOUNT_UNVERIFIED', 400);
      const { code } = await t.mail.waitFor(email, 'verifyShortCode', since);
      await t.client.sessionVerifyCode(created.sessionToken, { code: code! });
      const ok = await send(t, 'GET', '/account/keys', { authorization: auth });
      expectOk(ok);
      expect(ok.body.bundle).toMatch(/^[0-9a-f]{192}$/);
      expectInvalidToken(await send(t, 'GET', '/account/keys', { authorization: auth }));
      expectInvalidToken(await send(t, 'GET', '/account/keys', { authorization: hawk(t, 'GET', '/account/keys', { type: 'keyFetchToken', data: created.keyFetchToken! }) }));
    });
  });
});

describe.each(httpDialects())('token lifetimes (%s, manual clock)', (dialect) => {
  let m: TestServer;
  let a: Account;
  const minute = 60_000;
  beforeAll(async () => {
    m = await createTestServer({ dialect, manualClock: true });
    a = await account(m);
  });
  afterAll(async () => m?.close());

  it('an accountResetToken expires after 15 minutes', async () => {
    const lifetime = m.config.tokens.accountResetLifetime;
    expect(lifetime).toBe(15 * 60);
    // Just inside the lifetime the token authenticates (the bad body then answers 107 and spends it).
    const fresh = await resetToken(m, a.email);
    m.clock!.advance(lifetime * 1000 - 1000);
    expectError(await send(m, 'POST', '/account/reset', { authorization: bearer('accountResetToken', fresh), body: { authPW: 'x' } }), 'INVALID_PARAMETER', 400);
    const stale = await resetToken(m, a.email);
    m.clock!.advance(lifetime * 1000 + 1000);
    expectInvalidToken(await send(m, 'POST', '/account/reset', { authorization: bearer('accountResetToken', stale), body: { authPW: hex(64) } }));
  });

  it('a passwordChangeToken expires after 15 minutes', async () => {
    const lifetime = m.config.tokens.passwordChangeLifetime;
    expect(lifetime).toBe(15 * 60);
    const fresh = await changeToken(m, a);
    m.clock!.advance(lifetime * 1000 - 1000);
    expectError(await send(m, 'POST', '/password/change/finish', { authorization: bearer('passwordChangeToken', fresh), body: {} }), 'MISSING_PARAMETER', 400);
    const stale = await changeToken(m, a);
    m.clock!.advance(lifetime * 1000 + 1000);
    expectInvalidToken(await send(m, 'POST', '/password/change/finish', { authorization: bearer('passwordChangeToken', stale), body: { authPW: hex(64), wrapKb: hex(64) } }));
  });

  it('a passwordForgotToken expires after its lifetime', async () => {
    const lifetime = m.config.tokens.passwordForgotLifetime;
    const { passwordForgotToken } = await forgotToken(m, a.email);
    const auth = bearer('passwordForgotToken', passwordForgotToken);
    m.clock!.advance(lifetime * 1000 - 1000);
    const status = await send(m, 'GET', '/password/forgot/status', { authorization: auth });
    expectOk(status);
    expect(status.body.ttl).toBeLessThanOrEqual(1);
    m.clock!.advance(2000);
    expectInvalidToken(await send(m, 'GET', '/password/forgot/status', { authorization: auth }));
    expectInvalidToken(await send(m, 'POST', '/password/forgot/verify_code', { authorization: auth, body: { code: '00000000' } }));
  });

  it('a keyFetchToken expires after its lifetime', async () => {
    const lifetime = m.config.tokens.keyFetchLifetime;
    const created = await m.client.accountCreate({ email: newEmail('kftexp'), authPW: hex(64) }, { keys: true });
    const auth = bearer('keyFetchToken', created.keyFetchToken!);
    m.clock!.advance(lifetime * 1000 - 1000);
    // Still known (unconfirmed account: 104, token kept).
    expectError(await send(m, 'GET', '/account/keys', { authorization: auth }), 'ACCOUNT_UNVERIFIED', 400);
    m.clock!.advance(2000);
    expectInvalidToken(await send(m, 'GET', '/account/keys', { authorization: auth }));
  });

  it('a session idle longer than sessionWithoutDeviceLifetime is refused; use keeps it alive', async () => {
    const lifetime = m.config.tokens.sessionWithoutDeviceLifetime;
    expect(lifetime).toBeGreaterThan(60 * 60);
    const created = await m.client.accountCreate({ email: newEmail('idle'), authPW: hex(64) });
    const auth = bearer('sessionToken', created.sessionToken);
    // Used just before the idle limit, twice: each use restarts the idle time (within the write interval of an hour).
    m.clock!.advance(lifetime * 1000 - minute);
    expectOk(await send(m, 'GET', '/session/status', { authorization: auth }));
    m.clock!.advance(lifetime * 1000 - minute);
    expectOk(await send(m, 'GET', '/session/status', { authorization: auth }));
    m.clock!.advance(lifetime * 1000 + 1000);
    expectInvalidToken(await send(m, 'GET', '/session/status', { authorization: auth }));
    // Refused for good, not only once.
    expectInvalidToken(await send(m, 'GET', '/session/status', { authorization: auth }));
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('Hawk replay across instances sharing Redis', () => {
  it('refuses on one instance a request already seen by another', async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL! };
    const a = await createTestServer({ env });
    try {
      // A second server on the same database and Redis: another instance of one deployment.
      const { createApp } = await import('../../src/app.js');
      const { loadConfig } = await import('../../src/config.js');
      const acct = await a.accounts.signUp(newEmail(), 'replay password');
      const keys = deriveTokenKeys('sessionToken', acct.sessionToken);
      const url = new URL('/v1/session/status', a.url);
      const header = hawkHeader({ method: 'GET', url, credentials: { id: keys.tokenId, key: keys.authKey } });
      const b = await createApp({
        // The same data folder, hence the same secret: token rows are keyed under it.
        config: loadConfig({ ...env, PUBLIC_URL: a.url, LOG_LEVEL: 'silent', PORTAL_DIR: '/nonexistent', SMTP_URL: 'smtp://127.0.0.1:1', DATA_DIR: a.config.server.dataDir }),
        storage: a.storage, logger: false, signingKey: testSigningKey(),
      });
      try {
        const first = await a.app.server.inject({ method: 'GET', url: '/v1/session/status', headers: { authorization: header } });
        expect(first.statusCode).toBe(200);
        const replay = await b.server.inject({ method: 'GET', url: '/v1/session/status', headers: { authorization: header } });
        expect(replay.statusCode).toBe(401);
        expect(replay.json().errno).toBe(115);
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });
});
