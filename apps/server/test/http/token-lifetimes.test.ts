import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, hawkHeader } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, testSigningKey, type TestServer } from '../harness.js';
import { expectError, hex } from '../helpers.js';
import { account, bearer, changeToken, expectInvalidToken, expectOk, forgotToken, resetToken, send, type Account } from './token-auth.js';

// Token lifetimes (protocol.md §2.1, spec 1 §4) on every dialect, by a manual clock; and a Hawk
// nonce seen by one instance refused by another that shares its Redis.

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
