import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TesseraClient } from '@tessera/client';
import { createTestServer, httpDialects, newEmail, type TestServer } from '../harness.js';
import { expectError, hex } from '../helpers.js';
import {
  account, bearer, changeToken, expectBadSignature, expectInvalidToken, expectOk, forgotToken, hawk, idOf, nowSeconds, resetToken, send, type Account,
} from './token-auth.js';

// Token presentation (protocol.md §2.2) and single use (§2.1, spec 1 §4), on every dialect:
// prefixed Bearer ids, Hawk with MAC / payload hash / timestamp / nonce checks, and the 401 errnos
// of protocol.md §6.1 (109 signature, 110 token, 111 timestamp, 115 nonce). Lifetimes (a manual
// clock) and replay across instances are in token-lifetimes.test.ts.

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
