import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeader, deriveTokenKeys, randomHex, type TokenType } from '@tessera/protocol';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { fuzz } from '../../../../bench/fuzz-lib.mjs';
import { createTestServer, verifiedAccount, type TestServer } from '../harness.js';

// The short run of the schema-driven fuzzer (issue 9): a few hundred requests generated from
// openapi.json, valid and broken, with and without credentials of each kind. No answer may be a
// 5xx, and every error must be a catalogue error its operation declares. The long run (≥ 10,000
// requests) is `node bench/fuzz.mjs`.
const STUB_CLIENT = '6b6b6b6b6b6b6b6b';

describe('fuzzing the API from its OpenAPI document (short run)', () => {
  let t: TestServer;
  const credentials: Record<string, () => string> = {};
  beforeAll(async () => {
    t = await createTestServer({ env: { ACCOUNT_STUB_CLIENT_IDS: STUB_CLIENT, SCRYPT_MAX_PENDING: '1000' } });
    const bearer = (type: TokenType, data: string) => bearerHeader(type, deriveTokenKeys(type, data).tokenId);
    const acct = await verifiedAccount(t, 'fuzzing password', { keys: true });
    credentials.sessionToken = () => bearer('sessionToken', acct.sessionToken);
    if (acct.keyFetchToken) credentials.keyFetchToken = () => bearer('keyFetchToken', acct.keyFetchToken!);
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    credentials.passwordForgotToken = () => bearer('passwordForgotToken', sent.passwordForgotToken);
    const other = await verifiedAccount(t, 'another password');
    const start = await t.client.passwordChangeStart(other.sessionToken, { email: other.email, oldAuthPW: (await t.accounts.credentialsFor(other.email, other.password)).authPW });
    credentials.passwordChangeToken = () => bearer('passwordChangeToken', start.passwordChangeToken);
    const secret = randomHex(32);
    await t.app.services.oauth.registerClient(t.storage.db, {
      id: STUB_CLIENT, name: 'fuzz', imageUri: '', redirectUri: 'https://fuzz.example/', secret, trusted: false, publicClient: false, canGrant: false, allowedScopes: [], createdAt: 1,
    });
    const stub = await t.client.accountStub({ email: `stub.${randomHex(4)}@example.com`, clientId: STUB_CLIENT, clientSecret: secret });
    credentials.oauth = () => `Bearer ${stub.access_token}`;
  });
  afterAll(async () => t?.close());

  it('answers 600 generated requests without a 5xx, each error a declared catalogue error', async () => {
    const doc = JSON.parse(readFileSync(new URL('../../../../openapi.json', import.meta.url), 'utf8'));
    const report = await fuzz({ doc, baseUrl: t.url, credentials, requests: 600, seed: 20261124, timeLimitMs: 120_000, concurrency: 4 });
    expect(report.fiveXX).toEqual([]);
    expect(report.notCatalogue).toEqual([]);
    expect(report.undeclared).toEqual([]);
    expect(report.sent).toBeGreaterThan(300);
    // The generator reaches past validation: some requests succeed.
    expect(report.byStatus[200] ?? 0).toBeGreaterThan(20);
  }, 180_000);
});
