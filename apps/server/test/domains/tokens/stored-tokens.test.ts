import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, hawkHeader, TOKEN_TYPES, type TokenType } from '@tessera/protocol';
import { createApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { serverSecret } from '../../../src/crypto/dev-secret.js';
import { TokenSecrets } from '../../../src/crypto/token-secrets.js';
import { createTestServer, httpDialects, newEmail, testSigningKey, type TestServer } from '../../harness.js';
import { expectError, hex, rawRequest, type Reply } from '../../helpers.js';

// Issue 9, hole 4: what a read of the database gives. Every token table is read directly after
// real sign-ins and resets, and each row is presented the two ways a client can: as a prefixed
// Bearer id and as a Hawk header signed with the stored key. None may authenticate. Before the
// fix the rows held the ids and authKeys themselves, and every one of them did.
// Also here: a token used with Hawk is refused as Bearer from then on; sessions are named to
// clients by handle; another AUTH_SECRET finds no token at all.

const TABLES: Record<TokenType, 'session_tokens' | 'key_fetch_tokens' | 'account_reset_tokens' | 'password_forgot_tokens' | 'password_change_tokens'> = {
  sessionToken: 'session_tokens',
  keyFetchToken: 'key_fetch_tokens',
  accountResetToken: 'account_reset_tokens',
  passwordForgotToken: 'password_forgot_tokens',
  passwordChangeToken: 'password_change_tokens',
};

/** A request each token kind authenticates (a body that passes validation where one is needed). */
const PROBE: Record<TokenType, { method: 'GET' | 'POST'; path: string; body?: () => unknown }> = {
  sessionToken: { method: 'GET', path: '/session/status' },
  keyFetchToken: { method: 'GET', path: '/account/keys' },
  accountResetToken: { method: 'POST', path: '/account/reset', body: () => ({ authPW: hex(64) }) },
  passwordForgotToken: { method: 'GET', path: '/password/forgot/status' },
  passwordChangeToken: { method: 'POST', path: '/password/change/finish', body: () => ({ authPW: hex(64), wrapKb: hex(64) }) },
};

const bearer = (type: TokenType, id: string) => `Bearer ${TOKEN_TYPES[type].prefix}${id}`;

/** Presents `id` (and `key`, for Hawk) on the probe route of its kind. */
function present(t: TestServer, type: TokenType, how: 'bearer' | 'hawk', id: string, key = ''): Promise<Reply> {
  const probe = PROBE[type];
  const body = probe.body?.();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const authorization = how === 'bearer'
    ? bearer(type, id)
    : hawkHeader({
        method: probe.method, url: `${t.url}/v1${probe.path}`, credentials: { id, key },
        ...(payload !== undefined ? { payload, contentType: 'application/json' } : {}),
      });
  return rawRequest(t.url, probe.method, probe.path, { authorization, ...(payload !== undefined ? { raw: payload } : {}) });
}

/** A confirmed v1 account with a random authPW (one scrypt, no client stretch). */
async function account(t: TestServer, options: { keys?: boolean } = {}) {
  const email = newEmail('stored');
  const authPW = hex(64);
  const since = t.mail.messages.length;
  const created = await t.client.accountCreate({ email, authPW, verificationMethod: 'email-otp' }, { keys: options.keys ?? false });
  const { code } = await t.mail.waitFor(email, 'verifyShortCode', since);
  await t.client.sessionVerifyCode(created.sessionToken, { code: code! });
  return { email, authPW, uid: created.uid, sessionToken: created.sessionToken, keyFetchToken: created.keyFetchToken };
}

async function forgotToken(t: TestServer, email: string) {
  const since = t.mail.messages.length;
  const { passwordForgotToken } = await t.client.passwordForgotSendCode({ email });
  const { code } = await t.mail.waitFor(email, 'recoveryEmail', since);
  return { passwordForgotToken, code: code! };
}

describe.each(httpDialects())('stored tokens are not credentials (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect });
  });
  afterAll(async () => t?.close());

  it('a read of the token tables presents no token, neither as Bearer nor as Hawk with the stored key', async () => {
    // One live token of every kind, made through the API.
    const a = await account(t, { keys: true });
    const { passwordChangeToken } = await t.client.passwordChangeStart(a.sessionToken, { email: a.email, oldAuthPW: a.authPW });
    const b = await account(t);
    const first = await forgotToken(t, b.email);
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(first.passwordForgotToken, { code: first.code });
    const { passwordForgotToken } = await forgotToken(t, b.email);
    const live: Record<TokenType, string> = {
      sessionToken: a.sessionToken, keyFetchToken: a.keyFetchToken!, passwordChangeToken, accountResetToken, passwordForgotToken,
    };

    const dump: string[] = [];
    for (const [type, table] of Object.entries(TABLES) as [TokenType, (typeof TABLES)[TokenType]][]) {
      const rows = await t.storage.db.selectFrom(table).selectAll().execute();
      expect(rows.length, table).toBeGreaterThan(0);
      dump.push(JSON.stringify(rows));
      for (const row of rows) {
        expectError(await present(t, type, 'bearer', row.id_hash), 'INVALID_TOKEN', 401);
        expectError(await present(t, type, 'hawk', row.id_hash, row.sealed_auth_key), 'INVALID_TOKEN', 401);
      }
    }
    // Nothing the client holds or sends is in the tables: not the token, its id or its authKey.
    const all = dump.join('\n');
    for (const [type, data] of Object.entries(live) as [TokenType, string][]) {
      const { tokenId, authKey } = deriveTokenKeys(type, data);
      for (const value of [data, tokenId, authKey]) expect(all, `${type}`).not.toContain(value);
    }

    // The tokens themselves still work (the probes above spent none of them).
    expect((await present(t, 'sessionToken', 'bearer', deriveTokenKeys('sessionToken', a.sessionToken).tokenId)).status).toBe(200);
    expect((await present(t, 'passwordForgotToken', 'bearer', deriveTokenKeys('passwordForgotToken', passwordForgotToken).tokenId)).status).toBe(200);
    const kft = deriveTokenKeys('keyFetchToken', a.keyFetchToken!);
    const keys = await present(t, 'keyFetchToken', 'hawk', kft.tokenId, kft.authKey);
    expect(keys.status, keys.text).toBe(200);
    expect(keys.body.bundle).toMatch(/^[0-9a-f]{192}$/);
  });

  it('a token used with Hawk is refused as Bearer from then on; Bearer before that is fine', async () => {
    const a = await account(t);
    const session = deriveTokenKeys('sessionToken', a.sessionToken);
    expect((await present(t, 'sessionToken', 'bearer', session.tokenId)).status).toBe(200);
    expect((await present(t, 'sessionToken', 'hawk', session.tokenId, session.authKey)).status).toBe(200);
    const refused = await present(t, 'sessionToken', 'bearer', session.tokenId);
    expectError(refused, 'INVALID_TOKEN', 401);
    expect(refused.body.detail).toMatch(/Hawk/);
    // Hawk goes on working, and the SDK's Hawk client too.
    expect((await present(t, 'sessionToken', 'hawk', session.tokenId, session.authKey)).status).toBe(200);
    const hawkClient = t.newClient('hawk');
    expect((await hawkClient.sessionStatus(a.sessionToken)).uid).toBe(a.uid);
    const row = await t.storage.db.selectFrom('session_tokens').select('hawk_only').where('uid', '=', a.uid).executeTakeFirstOrThrow();
    expect(row.hawk_only).toBe(1);

    // A second session of the account, never used with Hawk, still takes Bearer.
    await expectError(t.client.sessionDuplicate(a.sessionToken), 'INVALID_TOKEN', 401);
    const other = await hawkClient.sessionDuplicate(a.sessionToken);
    expect((await t.client.sessionStatus(other.sessionToken)).uid).toBe(a.uid);

    // The short-lived tokens are pinned the same way.
    const { passwordForgotToken } = await forgotToken(t, a.email);
    const forgot = deriveTokenKeys('passwordForgotToken', passwordForgotToken);
    expect((await present(t, 'passwordForgotToken', 'hawk', forgot.tokenId, forgot.authKey)).status).toBe(200);
    expectError(await present(t, 'passwordForgotToken', 'bearer', forgot.tokenId), 'INVALID_TOKEN', 401);
    expect((await present(t, 'passwordForgotToken', 'hawk', forgot.tokenId, forgot.authKey)).status).toBe(200);
  });

  it('a Hawk request with a bad signature does not pin the token', async () => {
    const a = await account(t);
    const session = deriveTokenKeys('sessionToken', a.sessionToken);
    expectError(await present(t, 'sessionToken', 'hawk', session.tokenId, hex(64)), 'INVALID_REQUEST_SIGNATURE', 401);
    expect((await present(t, 'sessionToken', 'bearer', session.tokenId)).status).toBe(200);
  });

  it('names a session by its handle, which cannot be presented: /session/destroy takes the handle or the id', async () => {
    const secrets = new TokenSecrets(serverSecret(t.config.server));
    const idOf = (token: string) => deriveTokenKeys('sessionToken', token).tokenId;
    const handleOf = (token: string) => secrets.handle('sessionToken', idOf(token));
    const a = await account(t);
    const byHandle = await t.client.sessionDuplicate(a.sessionToken);
    const byId = await t.client.sessionDuplicate(a.sessionToken);
    // The handle is the row key.
    const rows = await t.storage.db.selectFrom('session_tokens').select('id_hash').where('uid', '=', a.uid).execute();
    expect(rows.map((r) => r.id_hash).sort()).toEqual([a.sessionToken, byHandle.sessionToken, byId.sessionToken].map(handleOf).sort());
    expectError(await present(t, 'sessionToken', 'bearer', handleOf(a.sessionToken)), 'INVALID_TOKEN', 401);

    await t.client.sessionDestroy(a.sessionToken, { customSessionToken: handleOf(byHandle.sessionToken) });
    await expectError(t.client.sessionStatus(byHandle.sessionToken), 'INVALID_TOKEN', 401);
    await t.client.sessionDestroy(a.sessionToken, { customSessionToken: idOf(byId.sessionToken) });
    await expectError(t.client.sessionStatus(byId.sessionToken), 'INVALID_TOKEN', 401);
    // Another account's session cannot be named, by handle or by id.
    const b = await account(t);
    await expectError(t.client.sessionDestroy(a.sessionToken, { customSessionToken: handleOf(b.sessionToken) }), 'INVALID_TOKEN', 401);
    await expectError(t.client.sessionDestroy(a.sessionToken, { customSessionToken: idOf(b.sessionToken) }), 'INVALID_TOKEN', 401);
    expect((await t.client.sessionStatus(b.sessionToken)).uid).toBe(b.uid);
    expect((await t.client.sessionStatus(a.sessionToken)).uid).toBe(a.uid);
  });

  it('another AUTH_SECRET finds none of the tokens: rotating it signs everyone out', async () => {
    const a = await account(t);
    const id = deriveTokenKeys('sessionToken', a.sessionToken).tokenId;
    const other = await createApp({
      config: loadConfig({ PUBLIC_URL: t.url, LOG_LEVEL: 'silent', PORTAL_DIR: '/nonexistent', SMTP_URL: 'smtp://127.0.0.1:1', AUTH_SECRET: hex(64) }),
      storage: t.storage, logger: false, signingKey: testSigningKey(),
    });
    try {
      const r = await other.server.inject({ method: 'GET', url: '/v1/session/status', headers: { authorization: bearer('sessionToken', id) } });
      expect(r.statusCode).toBe(401);
      expect(r.json().errno).toBe(110);
    } finally {
      await other.close();
    }
    expect((await t.client.sessionStatus(a.sessionToken)).uid).toBe(a.uid);
  });
});
