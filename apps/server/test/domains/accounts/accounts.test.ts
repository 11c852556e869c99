import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, stretchV1 } from '@tessera/protocol';
import { isTesseraError } from '@tessera/client';
import { expectError } from '../../helpers.js';
import { serverSecret } from '../../../src/crypto/dev-secret.js';
import { TokenSecrets } from '../../../src/crypto/token-secrets.js';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';

describe.each(httpDialects())('accounts over HTTP (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect });
  });
  afterAll(async () => t?.close());

  it('signs up, confirms by code, signs in, fetches and unwraps the keys (v2)', async () => {
    const email = newEmail();
    const password = 'a long and memorable password';
    const signedUp = await t.accounts.signUp(email, password, { keys: true, verificationMethod: 'email-otp' });
    expect(signedUp.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(signedUp.keyFetchToken).toMatch(/^[0-9a-f]{64}$/);

    // Keys are refused (104) before confirmation, and the token survives the refusal.
    await expectError(t.accounts.fetchKeys(signedUp.keyFetchToken!, signedUp.unwrapBKey), 'ACCOUNT_UNVERIFIED', 400);
    const mail = await t.mail.waitFor(email, 'verifyShortCode');
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(mail.code);
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: mail.code! });

    const keys = await t.accounts.fetchKeys(signedUp.keyFetchToken!, signedUp.unwrapBKey);
    expect(keys.kA).toMatch(/^[0-9a-f]{64}$/);
    // The token is spent now.
    await expectError(t.client.accountKeys(signedUp.keyFetchToken!), 'INVALID_TOKEN', 401);

    const status = await t.client.sessionStatus(signedUp.sessionToken);
    expect(status).toEqual({
      state: 'verified', uid: signedUp.uid,
      details: { accountEmailVerified: true, sessionVerificationMethod: 'email-2fa', sessionVerified: true, sessionVerificationMeetsMinimumAAL: true, verified: true },
    });

    // A new sign-in to a fresh account needs no confirmation (48 h grace) and yields the same kB.
    const signedIn = await t.accounts.signIn(email, password, { keys: true });
    expect(signedIn.verified).toBe(true);
    const again = await t.accounts.fetchKeys(signedIn.keyFetchToken!, signedIn.unwrapBKey);
    expect(again).toEqual(keys);
  });

  it('signs in with v1 credentials to a v1 account and gets the same kB as the v1 stretch implies', async () => {
    const email = newEmail();
    const creds = await stretchV1(email, 'v1 password');
    const created = await t.client.accountCreate({ email, authPW: creds.authPW }, { keys: true });
    expect(created.keyFetchTokenVersion2).toBeUndefined();
    const link = await t.mail.waitFor(email, 'verify');
    expect(link.link).toContain(`/verify_email?uid=${created.uid}`);
    await t.client.recoveryEmailVerifyCode({ uid: created.uid, code: link.code! });
    const status = await t.client.accountCredentialsStatus({ email });
    expect(status).toEqual({ currentVersion: 'v1', upgradeNeeded: true });
    const login = await t.client.accountLogin({ email, authPW: creds.authPW }, { keys: true });
    expect(login.keyFetchToken).toMatch(/^[0-9a-f]{64}$/);
    const k1 = await t.accounts.fetchKeys(created.keyFetchToken!, creds.unwrapBKey);
    const k2 = await t.accounts.fetchKeys(login.keyFetchToken!, creds.unwrapBKey);
    expect(k2).toEqual(k1);
  });

  it('refuses a wrong password (103), an unknown account (102) and an existing account (101)', async () => {
    const { email } = await verifiedAccount(t);
    const wrong = await expectError(t.accounts.signIn(email, 'not the password'), 'INCORRECT_PASSWORD', 400);
    expect(wrong.errno).toBe(103);
    expect(wrong.body.email).toBe(email);
    const unknown = newEmail('nobody');
    const err = await expectError(t.client.accountLogin({ email: unknown, authPW: 'a'.repeat(64) }), 'ACCOUNT_UNKNOWN', 400);
    expect(err.errno).toBe(102);
    const exists = await expectError(t.accounts.signUp(email, 'whatever password'), 'ACCOUNT_EXISTS', 400);
    expect(exists.errno).toBe(101);
    await expectError(t.client.accountCredentialsStatus({ email: unknown }), 'ACCOUNT_UNKNOWN');
  });

  it('answers 120 with the stored spelling when a v1 client salts with another case', async () => {
    const email = newEmail('Mixed');
    const stored = email.replace('mixed', 'Mixed');
    const creds = await stretchV1(stored, 'pw pw pw pw');
    const created = await t.client.accountCreate({ email: stored, authPW: creds.authPW });
    await t.client.recoveryEmailVerifyCode({ uid: created.uid, code: (await t.mail.waitFor(stored, 'verify')).code! });
    const lower = stored.toLowerCase();
    const wrongCase = await stretchV1(lower, 'pw pw pw pw');
    const err = await expectError(t.client.accountLogin({ email: lower, authPW: wrongCase.authPW }), 'INCORRECT_EMAIL_CASE', 400);
    expect(err.body.email).toBe(stored);
    // The SDK retries with the stored spelling by itself.
    const ok = await t.accounts.signIn(lower, 'pw pw pw pw');
    expect(ok.uid).toBe(created.uid);
  });

  it('replaces an unverified sign-up with a new one for the same address', async () => {
    const email = newEmail();
    const first = await t.accounts.signUp(email, 'first password!');
    const second = await t.accounts.signUp(email, 'second password');
    expect(second.uid).not.toBe(first.uid);
    await expectError(t.client.sessionStatus(first.sessionToken), 'INVALID_TOKEN', 401);
  });

  it('reports account status by session, by uid and by email', async () => {
    const acct = await verifiedAccount(t);
    expect(await t.client.accountStatus({ sessionToken: acct.sessionToken })).toEqual({ exists: true, locale: null, hasPassword: true });
    expect(await t.client.accountStatus(undefined, { uid: acct.uid })).toEqual({ exists: true });
    expect(await t.client.accountStatus(undefined, { uid: 'f'.repeat(32) })).toEqual({ exists: false });
    expect(await t.client.accountStatusByEmail({ email: acct.email })).toEqual({ exists: true });
    expect(await t.client.accountStatusByEmail({ email: acct.email, thirdPartyAuthStatus: true })).toEqual({ exists: true, hasLinkedAccount: false, hasPassword: true, hasPasskey: false });
    expect(await t.client.accountStatusByEmail({ email: newEmail() })).toEqual({ exists: false });
    const err = await t.client.transport.request({ method: 'GET', path: '/account/status' }).catch((e: unknown) => e);
    expect(isTesseraError(err, 'MISSING_PARAMETER') && err.body.param).toBe('uid');
  });

  it('returns the account and the profile', async () => {
    const acct = await verifiedAccount(t);
    const account = await t.client.account(acct.sessionToken);
    expect(account).toMatchObject({ uid: acct.uid, email: acct.email, emailVerified: true, hasPassword: true, passwordVersion: 'v2', emails: [{ email: acct.email, verified: true, isPrimary: true }] });
    const profile = await t.client.accountProfile({ sessionToken: acct.sessionToken });
    expect(profile).toMatchObject({ email: acct.email, authenticationMethods: ['pwd', 'email'], authenticatorAssuranceLevel: 1, accountDisabledAt: null, accountLockedAt: null });
  });

  it('destroys the account with the password, on a confirmed session only', async () => {
    const acct = await verifiedAccount(t);
    const creds = await t.accounts.credentialsFor(acct.email, acct.password);
    await expectError(t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW: 'b'.repeat(64) }), 'INCORRECT_PASSWORD');
    await t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW: creds.authPW });
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
    await expectError(t.client.accountCredentialsStatus({ email: acct.email }), 'ACCOUNT_UNKNOWN');

    // An unconfirmed session gets 138.
    const other = newEmail();
    const unconfirmed = await t.accounts.signUp(other, 'password password');
    const c2 = await t.accounts.credentialsFor(other, 'password password');
    await expectError(t.client.accountDestroy(unconfirmed.sessionToken, { email: other, authPW: c2.authPW }), 'SESSION_UNVERIFIED', 400);
  });

  it('serves 32 random bytes and the public keys', async () => {
    const a = await t.client.getRandomBytes();
    const b = await t.client.getRandomBytes();
    expect(a.data).toMatch(/^[0-9a-f]{64}$/);
    expect(a.data).not.toBe(b.data);
    const keys = await t.client.publicKeys();
    expect(keys.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.stringMatching(/^\d{8}-[0-9a-f]{8}$/) });
    const browserid = await t.client.browserid();
    expect(browserid['public-key'].algorithm).toBe('RS');
    expect(BigInt(browserid['public-key'].n).toString(16)).toBe(Buffer.from(keys.keys[0]!.n, 'base64url').toString('hex').replace(/^0+/, ''));
    expect(browserid.disabled).toBe(true);
  });

  it('keys the stored session by the HMAC of the id derived from the token it returned', async () => {
    const acct = await verifiedAccount(t);
    const keys = deriveTokenKeys('sessionToken', acct.sessionToken);
    const handle = new TokenSecrets(serverSecret(t.config.server)).handle('sessionToken', keys.tokenId);
    const row = await t.storage.db.selectFrom('session_tokens').select(['id_hash', 'uid']).where('id_hash', '=', handle).executeTakeFirst();
    expect(row?.uid).toBe(acct.uid);
    // Neither the token nor its id or authKey is stored anywhere (test/domains/tokens/stored-tokens.test.ts goes further).
    const all = JSON.stringify(await t.storage.db.selectFrom('session_tokens').selectAll().execute());
    for (const secret of [acct.sessionToken, keys.tokenId, keys.authKey]) expect(all).not.toContain(secret);
  });
});
