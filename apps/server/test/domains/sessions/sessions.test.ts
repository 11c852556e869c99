import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

describe.each(httpDialects())('sessions and sign-in confirmation (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    // Every sign-in must be confirmed here (no grace period for new accounts).
    t = await createTestServer({ dialect, env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
  });
  afterAll(async () => t?.close());

  it('reports the unconfirmed states of a new sign-up', async () => {
    const email = newEmail();
    const s = await t.accounts.signUp(email, 'password one two');
    expect(await t.client.sessionStatus(s.sessionToken)).toEqual({
      state: 'unverified', uid: s.uid,
      details: { accountEmailVerified: false, sessionVerificationMethod: null, sessionVerified: false, sessionVerificationMeetsMinimumAAL: false, verified: false },
    });
    expect(await t.client.recoveryEmailStatus(s.sessionToken)).toEqual({ email, verified: false, sessionVerified: false, emailVerified: false });
  });

  it('confirms a new sign-in by emailed code (email-otp) and sends the sign-in notice', async () => {
    const acct = await verifiedAccount(t);
    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password, { keys: true, verificationMethod: 'email-otp' });
    expect(login).toMatchObject({ verified: false, verificationMethod: 'email-otp', verificationReason: 'login' });
    const mail = await t.mail.waitFor(acct.email, 'verifyLoginCode', since);
    expect(mail.subject).toContain(mail.code);
    await expectError(t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey), 'ACCOUNT_UNVERIFIED', 400);

    await expectError(t.client.sessionVerifyCode(login.sessionToken, { code: mail.code === '000000' ? '111111' : '000000' }), 'INVALID_EXPIRED_OTP_CODE', 400);
    await t.client.sessionVerifyCode(login.sessionToken, { code: mail.code! });
    const status = await t.client.sessionStatus(login.sessionToken);
    expect(status.details).toMatchObject({ sessionVerified: true, sessionVerificationMethod: 'email-2fa' });
    await t.mail.waitFor(acct.email, 'newDeviceLogin', since);
    const keys = await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey);
    expect(keys.kB).toMatch(/^[0-9a-f]{64}$/);
  });

  it('confirms a new sign-in by emailed link (verificationMethod email)', async () => {
    const acct = await verifiedAccount(t);
    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password);
    expect(login).toMatchObject({ verified: false, verificationMethod: 'email', verificationReason: 'login' });
    const mail = await t.mail.waitFor(acct.email, 'verifyLogin', since);
    const link = new URL(mail.link!);
    expect(link.pathname).toBe('/verify_email');
    expect(link.searchParams.get('uid')).toBe(acct.uid);
    await expectError(t.client.recoveryEmailVerifyCode({ uid: acct.uid, code: 'f'.repeat(32) }), 'INVALID_VERIFICATION_CODE', 400);
    await t.client.recoveryEmailVerifyCode({ uid: acct.uid, code: link.searchParams.get('code')! });
    expect((await t.client.sessionStatus(login.sessionToken)).state).toBe('verified');
    await t.mail.waitFor(acct.email, 'newDeviceLogin', since);
    // The link confirmed only that session: the original one is unaffected and still confirmed.
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
  });

  it('voids a code after too many wrong tries and accepts a resent one', async () => {
    const acct = await verifiedAccount(t);
    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    const first = await t.mail.waitFor(acct.email, 'verifyLoginCode', since);
    const wrong = first.code === '123456' ? '654321' : '123456';
    for (let i = 0; i < t.config.signin.codeTries; i++) {
      await expectError(t.client.sessionVerifyCode(login.sessionToken, { code: wrong }), 'INVALID_EXPIRED_OTP_CODE');
    }
    // The right code no longer works: the tries are spent.
    const spent = await expectError(t.client.sessionVerifyCode(login.sessionToken, { code: first.code! }), 'INVALID_EXPIRED_OTP_CODE');
    expect(spent.message).toMatch(/new code/);
    const before = t.mail.messages.length;
    await t.client.sessionResendCode(login.sessionToken, { type: 'upgradeSession' });
    const second = await t.mail.waitFor(acct.email, 'verifyLoginCode', before);
    await t.client.sessionVerifyCode(login.sessionToken, { code: second.code! });
    expect((await t.client.sessionStatus(login.sessionToken)).state).toBe('verified');
  });

  it('refuses an expired code with 153', async () => {
    const timed = await createTestServer({ dialect, manualClock: true, env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
    try {
      const email = newEmail();
      const s = await timed.accounts.signUp(email, 'password one two', { verificationMethod: 'email-otp' });
      const mail = await timed.mail.waitFor(email, 'verifyShortCode');
      timed.clock!.advance(timed.config.signin.codeLifetimeSeconds * 1000 + 1000);
      await expectError(timed.client.sessionVerifyCode(s.sessionToken, { code: mail.code! }), 'EXPIRED_TOKEN_VERIFICATION_CODE', 400);
      // A resent code works.
      const before = timed.mail.messages.length;
      await timed.client.sessionResendCode(s.sessionToken);
      const again = await timed.mail.waitFor(email, 'verifyShortCode', before);
      await timed.client.sessionVerifyCode(s.sessionToken, { code: again.code! });
      expect((await timed.client.recoveryEmailStatus(s.sessionToken)).verified).toBe(true);
    } finally {
      await timed.close();
    }
  });

  it('resends the link email and refuses addresses that are not the account\'s (150)', async () => {
    const email = newEmail();
    const s = await t.accounts.signUp(email, 'password one two');
    const before = t.mail.messages.length;
    await t.client.recoveryEmailResendCode(s.sessionToken, {});
    const mail = await t.mail.waitFor(email, 'verify', before);
    await expectError(t.client.recoveryEmailResendCode(s.sessionToken, { email: newEmail() }), 'RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', 400);
    await t.client.recoveryEmailVerifyCode({ uid: s.uid, code: mail.code! });
    expect(await t.client.recoveryEmailStatus(s.sessionToken)).toMatchObject({ verified: true, emailVerified: true });
  });

  it('accepts POSTs without a body where every field is optional', async () => {
    const acct = await verifiedAccount(t);
    const { tokenId } = deriveTokenKeys('sessionToken', acct.sessionToken);
    const res = await fetch(`${t.url}/v1/session/destroy`, { method: 'POST', headers: { authorization: `Bearer fxs_${tokenId}` } });
    expect(res.status).toBe(200);
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
  });

  it('duplicates a session in the same state and destroys sessions', async () => {
    const acct = await verifiedAccount(t);
    const copy = await t.client.sessionDuplicate(acct.sessionToken, { reason: 'migration' });
    expect(copy).toMatchObject({ uid: acct.uid, verified: true, emailVerified: true, sessionVerified: true });
    expect(copy.sessionToken).not.toBe(acct.sessionToken);
    expect((await t.client.sessionStatus(copy.sessionToken)).state).toBe('verified');

    // Another account's session cannot be destroyed by id.
    const other = await verifiedAccount(t);
    const otherId = deriveTokenKeys('sessionToken', other.sessionToken).tokenId;
    await expectError(t.client.sessionDestroy(acct.sessionToken, { customSessionToken: otherId }), 'INVALID_TOKEN', 401);
    expect((await t.client.sessionStatus(other.sessionToken)).state).toBe('verified');

    // Destroying the copy by id leaves the caller's session.
    await t.client.sessionDestroy(acct.sessionToken, { customSessionToken: deriveTokenKeys('sessionToken', copy.sessionToken).tokenId });
    await expectError(t.client.sessionStatus(copy.sessionToken), 'INVALID_TOKEN', 401);
    await t.client.sessionDestroy(acct.sessionToken);
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
  });

  it('reauthenticates a session and returns a key fetch token', async () => {
    const acct = await verifiedAccount(t);
    const creds = await t.accounts.credentialsFor(acct.email, acct.password);
    const reply = await t.client.sessionReauth(acct.sessionToken, { email: acct.email, authPW: creds.authPW }, { keys: true });
    expect(reply).toMatchObject({ uid: acct.uid, verified: true });
    expect(reply.keyFetchTokenVersion2).toMatch(/^[0-9a-f]{64}$/);
    const keys = await t.accounts.fetchKeys(reply.keyFetchTokenVersion2!, creds.unwrapBKey);
    expect(keys.kB).toMatch(/^[0-9a-f]{64}$/);
    await expectError(t.client.sessionReauth(acct.sessionToken, { email: acct.email, authPW: '0'.repeat(64) }), 'INCORRECT_PASSWORD');
  });

  it('signs in to an unconfirmed account with the sign-up loop (reason signup)', async () => {
    const email = newEmail();
    await t.accounts.signUp(email, 'password one two', { verificationMethod: 'email-otp' });
    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(email, 'password one two', { verificationMethod: 'email-otp' });
    expect(login).toMatchObject({ verified: false, verificationReason: 'signup' });
    const mail = await t.mail.waitFor(email, 'verifyShortCode', since);
    await t.client.sessionVerifyCode(login.sessionToken, { code: mail.code! });
    expect(await t.client.recoveryEmailStatus(login.sessionToken)).toMatchObject({ emailVerified: true, sessionVerified: true });
  });
});
