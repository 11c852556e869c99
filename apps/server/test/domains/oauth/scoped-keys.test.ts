import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { decryptKeysBundle, deriveScopedKey, encryptKeysBundle, randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

// Issue 14, step 5: end-to-end encrypted scoped keys. The signed-in client asks the server for the
// key metadata, derives the key from kB, encrypts the bundle to the relying party's ephemeral key
// and passes the JWE with the authorization; the relying party gets it once, with the token.

const SYNC = 'https://identity.mozilla.com/apps/oldsync';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

describe.each(httpDialects())('scoped keys through the code flow (%s)', (dialect) => {
  let t: TestServer;
  const rp = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer({ dialect });
    await t.app.services.oauth.registerClient(t.storage.db, { id: rp, name: 'Sync RP', redirectUris: ['https://rp.example/cb'], publicClient: true, trusted: true, canGrant: false, allowedScopes: ['profile', SYNC], createdAt: 1 });
  });
  afterAll(async () => t?.close());

  it('delivers the key bundle encrypted to the relying party, once', async () => {
    const account = await verifiedAccount(t, 'correct horse battery staple', { keys: true });
    const signedIn = await t.accounts.signIn(account.email, account.password, { keys: true, verificationMethod: 'email-otp' });
    if ((await t.client.sessionStatus(signedIn.sessionToken)).state !== 'verified') {
      const code = (await t.mail.waitFor(account.email, 'verifyLoginCode')).code!;
      await t.client.sessionVerifyCode(signedIn.sessionToken, { code });
    }
    const { kB } = await t.accounts.fetchKeys(signedIn.keyFetchToken!, signedIn.unwrapBKey);

    // The relying party's ephemeral key.
    const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    const pub = await exportJWK(publicKey);
    const keysJwk = Buffer.from(JSON.stringify({ crv: pub.crv, kty: pub.kty, x: pub.x, y: pub.y })).toString('base64url');

    const data = await t.client.accountScopedKeyData(signedIn.sessionToken, { client_id: rp, scope: `profile ${SYNC}` });
    expect(Object.keys(data)).toEqual([SYNC]);
    const meta = data[SYNC]!;
    expect(meta).toMatchObject({ identifier: SYNC, keyRotationSecret: '0'.repeat(64) });
    const key = deriveScopedKey({ kB, uid: account.uid, ...meta });
    const keysJwe = await encryptKeysBundle({ [SYNC]: key }, keysJwk);

    const a = await t.client.oauthAuthorization(signedIn.sessionToken, { client_id: rp, scope: `profile ${SYNC}`, code_challenge: CHALLENGE, code_challenge_method: 'S256', keys_jwe: keysJwe });
    const tok = await t.client.oauthToken(undefined, { client_id: rp, code: a.code, code_verifier: VERIFIER });
    expect(tok.keys_jwe).toBe(keysJwe);
    expect(await decryptKeysBundle(tok.keys_jwe!, await exportJWK(privateKey))).toEqual({ [SYNC]: key });
    // Stored once: the code's row no longer holds it.
    const rows = await t.storage.db.selectFrom('oauth_codes').select('keys_jwe').where('client_id', '=', rp).execute();
    expect(rows.every((r) => r.keys_jwe === null)).toBe(true);

    await expectError(t.client.accountScopedKeyData(signedIn.sessionToken, { client_id: rp, scope: 'https://identity.mozilla.com/apps/notes' }), 'INVALID_SCOPES', 400);
    await expectError(t.client.keyData(signedIn.sessionToken, { client_id: randomHex(8), scope: SYNC }), 'UNKNOWN_CLIENT', 400);
    await expectError(t.client.accountScopedKeyData(signedIn.sessionToken, { client_id: randomHex(8), scope: SYNC }), 'UNKNOWN_CLIENT_ID', 400);
  }, 120_000);
});
