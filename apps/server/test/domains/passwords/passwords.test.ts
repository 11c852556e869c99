import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

/** A client allowed to create stub accounts (ACCOUNT_STUB_CLIENT_IDS) in these tests. */
const STUB_CLIENT = '5a5a5a5a5a5a5a5a';

describe.each(httpDialects())('password flows (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { ACCOUNT_STUB_CLIENT_IDS: STUB_CLIENT } });
  });
  afterAll(async () => t?.close());

  it('changes the password and keeps kB; other sessions end; a notice is sent', async () => {
    const acct = await verifiedAccount(t, 'old password here', { keys: true });
    const before = await t.accounts.fetchKeys(acct.keyFetchToken!, acct.unwrapBKey);
    const other = await t.accounts.signIn(acct.email, 'old password here');
    const since = t.mail.messages.length;

    const changed = await t.accounts.changePassword(acct.sessionToken, acct.email, 'old password here', 'new password there', { keys: true });
    expect(changed.sessionToken).toMatch(/^[0-9a-f]{64}$/);
    expect(changed.verified).toBe(true);
    const after = await t.accounts.fetchKeys(changed.keyFetchToken!, changed.unwrapBKey);
    expect(after).toEqual(before);

    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
    await expectError(t.client.sessionStatus(other.sessionToken), 'INVALID_TOKEN', 401);
    expect((await t.client.sessionStatus(changed.sessionToken!)).state).toBe('verified');
    await t.mail.waitFor(acct.email, 'passwordChanged', since);

    await expectError(t.accounts.signIn(acct.email, 'old password here'), 'INCORRECT_PASSWORD');
    const relogin = await t.accounts.signIn(acct.email, 'new password there', { keys: true });
    expect(await t.accounts.fetchKeys(relogin.keyFetchToken!, relogin.unwrapBKey)).toEqual(before);
  });

  it('refuses change/start with a wrong old password; the change token survives a malformed finish and is spent by a valid one', async () => {
    const acct = await verifiedAccount(t);
    await expectError(t.client.passwordChangeStart(acct.sessionToken, { email: acct.email, oldAuthPW: 'c'.repeat(64) }), 'INCORRECT_PASSWORD', 400);
    const creds = await t.accounts.credentialsFor(acct.email, acct.password);
    const start = await t.client.passwordChangeStart(acct.sessionToken, { email: acct.email, oldAuthPW: creds.authPW });
    expect(start.keyFetchToken2).toMatch(/^[0-9a-f]{64}$/);
    expect(start.keyFetchToken).toBeUndefined();
    // finish without wrapKb would lose kB: refused by the schema, and the token is kept.
    await expectError(t.client.passwordChangeFinish(start.passwordChangeToken, { authPW: 'd'.repeat(64) } as never), 'MISSING_PARAMETER', 400);
    // A valid request spends it even when it then fails (a session id of no session of this account)…
    await expectError(t.client.passwordChangeFinish(start.passwordChangeToken, { authPW: 'd'.repeat(64), wrapKb: 'e'.repeat(64), sessionToken: 'f'.repeat(64) }), 'INVALID_TOKEN', 401);
    // …so it cannot be used again.
    const again = await expectError(t.client.passwordChangeFinish(start.passwordChangeToken, { authPW: 'd'.repeat(64), wrapKb: 'e'.repeat(64) }), 'INVALID_TOKEN', 401);
    expect(again.body.detail).toMatch(/Unknown or expired|already used/);
    // The old password still works: nothing changed.
    expect((await t.accounts.signIn(acct.email, acct.password)).uid).toBe(acct.uid);
  });

  it('upgrades a v1 password to v2 without ending sessions', async () => {
    const { stretchV1, stretchV2, createClientSalt, unwrapKb } = await import('@tessera/protocol');
    const email = newEmail();
    const v1 = await stretchV1(email, 'legacy password');
    const created = await t.client.accountCreate({ email, authPW: v1.authPW }, { keys: true });
    await t.client.recoveryEmailVerifyCode({ uid: created.uid, code: (await t.mail.waitFor(email, 'verify')).code! });
    const { kB } = await t.accounts.fetchKeys(created.keyFetchToken!, v1.unwrapBKey);
    const start = await t.client.passwordChangeStart(created.sessionToken, { email, oldAuthPW: v1.authPW });
    const clientSalt = createClientSalt();
    const v2 = await stretchV2(clientSalt, 'legacy password');
    const since = t.mail.messages.length;
    const reply = await t.client.passwordChangeFinish(start.passwordChangeToken, {
      authPW: v1.authPW, wrapKb: unwrapKb(kB, v1.unwrapBKey), authPWVersion2: v2.authPW, wrapKbVersion2: unwrapKb(kB, v2.unwrapBKey), clientSalt,
      sessionToken: deriveTokenKeys('sessionToken', created.sessionToken).tokenId,
    });
    expect(reply).toEqual({});
    expect((await t.client.sessionStatus(created.sessionToken)).state).toBe('verified');
    expect(await t.client.accountCredentialsStatus({ email })).toEqual({ currentVersion: 'v2', clientSalt, upgradeNeeded: false });
    const login = await t.accounts.signIn(email, 'legacy password', { keys: true });
    expect((await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey)).kB).toBe(kB);
    expect(t.mail.messages.slice(since).filter((m) => m.template === 'passwordChanged')).toHaveLength(0);
  });

  it('forgot → code → reset: old sessions dead, new password works, old one fails, kB replaced', async () => {
    const acct = await verifiedAccount(t, 'forgotten password', { keys: true });
    const oldKeys = await t.accounts.fetchKeys(acct.keyFetchToken!, acct.unwrapBKey);
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    expect(sent).toMatchObject({ codeLength: 8, tries: t.config.tokens.passwordForgotTries, ttl: t.config.tokens.passwordForgotLifetime });
    const mail = await t.mail.waitFor(acct.email, 'recoveryEmail');
    expect(mail.code).toMatch(/^\d{8}$/);
    const link = new URL(mail.link!);
    expect(link.pathname).toBe('/complete_reset_password');
    expect(link.searchParams.get('token')).toBe(sent.passwordForgotToken);
    expect(await t.client.passwordForgotStatus(sent.passwordForgotToken)).toEqual({ tries: sent.tries, ttl: sent.ttl });

    const { accountResetToken } = await t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: mail.code! });
    // The forgot token is spent.
    await expectError(t.client.passwordForgotStatus(sent.passwordForgotToken), 'INVALID_TOKEN', 401);

    const since = t.mail.messages.length;
    const reset = await t.accounts.resetPassword(accountResetToken, acct.email, 'brand new password', { keys: true });
    expect(reset).toMatchObject({ uid: acct.uid, verified: true, sessionVerified: true, emailVerified: true });
    await t.mail.waitFor(acct.email, 'passwordReset', since);
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
    // The reset token was single use.
    await expectError(t.accounts.resetPassword(accountResetToken, acct.email, 'again, a new password'), 'INVALID_TOKEN', 401);

    const newKeys = await t.accounts.fetchKeys(reset.keyFetchToken!, reset.unwrapBKey);
    expect(newKeys.kA).toBe(oldKeys.kA);
    expect(newKeys.kB).not.toBe(oldKeys.kB);
    await expectError(t.accounts.signIn(acct.email, 'forgotten password'), 'INCORRECT_PASSWORD');
    const login = await t.accounts.signIn(acct.email, 'brand new password', { keys: true });
    expect(await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey)).toEqual(newKeys);
  });

  it('counts wrong forgot codes down (105 with tries and ttl) and deletes the token at zero', async () => {
    const acct = await verifiedAccount(t);
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    const mail = await t.mail.waitFor(acct.email, 'recoveryEmail');
    const wrong = mail.code === '00000000' ? '11111111' : '00000000';
    for (let left = sent.tries - 1; left >= 0; left--) {
      const err = await expectError(t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: wrong }), 'INVALID_VERIFICATION_CODE', 400);
      expect(err.body.tries).toBe(left);
      expect(err.body.ttl).toBeGreaterThan(0);
    }
    // Tries exhausted: the token is gone, even the right code cannot use it; a new code is needed.
    await expectError(t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: mail.code! }), 'INVALID_TOKEN', 401);
  });

  it('keeps one forgot token per account; resend keeps the token with its age and tries', async () => {
    const acct = await verifiedAccount(t);
    const first = await t.client.passwordForgotSendCode({ email: acct.email });
    const second = await t.client.passwordForgotSendCode({ email: acct.email });
    await expectError(t.client.passwordForgotStatus(first.passwordForgotToken), 'INVALID_TOKEN', 401);
    const firstCode = (await t.mail.waitFor(acct.email, 'recoveryEmail')).code!;
    // Spend one try with a wrong code, then resend.
    await expectError(t.client.passwordForgotVerifyCode(second.passwordForgotToken, { code: firstCode === '99999999' ? '88888888' : '99999999' }), 'INVALID_VERIFICATION_CODE');
    const before = t.mail.messages.length;
    const resent = await t.client.passwordForgotResendCode(second.passwordForgotToken, { email: acct.email });
    expect(resent.tries).toBe(second.tries - 1);
    expect(resent.ttl).toBeLessThanOrEqual(second.ttl);
    const newCode = (await t.mail.waitFor(acct.email, 'recoveryEmail', before)).code!;
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(second.passwordForgotToken, { code: newCode });
    expect(accountResetToken).toMatch(/^[0-9a-f]{64}$/);
  });

  it('resets through the 8-digit one-time code (send_otp / verify_otp)', async () => {
    const acct = await verifiedAccount(t);
    expect(await t.client.passwordForgotSendOtp({ email: acct.email })).toEqual({});
    const mail = await t.mail.waitFor(acct.email, 'passwordForgotOtp');
    expect(mail.code).toMatch(/^\d{8}$/);
    await expectError(t.client.passwordForgotVerifyOtp({ email: acct.email, code: mail.code === '12345678' ? '87654321' : '12345678' }), 'INVALID_VERIFICATION_CODE', 400);
    const verified = await t.client.passwordForgotVerifyOtp({ email: acct.email, code: mail.code! });
    expect(verified).toMatchObject({ uid: acct.uid, emailToHashWith: acct.email });
    // The code is single use.
    await expectError(t.client.passwordForgotVerifyOtp({ email: acct.email, code: mail.code! }), 'INVALID_VERIFICATION_CODE');
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(verified.token, { code: verified.code });
    const reset = await t.accounts.resetPassword(accountResetToken, verified.emailToHashWith, 'otp reset password');
    expect(reset.sessionToken).toMatch(/^[0-9a-f]{64}$/);
    await expectError(t.client.passwordForgotSendOtp({ email: newEmail() }), 'ACCOUNT_UNKNOWN', 400);
  });

  it('expires forgot OTPs (153) and reset tokens', async () => {
    const timed = await createTestServer({ dialect, manualClock: true });
    try {
      const acct = await verifiedAccount(timed);
      await timed.client.passwordForgotSendOtp({ email: acct.email });
      const otp = await timed.mail.waitFor(acct.email, 'passwordForgotOtp');
      timed.clock!.advance(timed.config.tokens.passwordForgotOtpLifetime * 1000 + 1);
      await expectError(timed.client.passwordForgotVerifyOtp({ email: acct.email, code: otp.code! }), 'EXPIRED_TOKEN_VERIFICATION_CODE', 400);

      const sent = await timed.client.passwordForgotSendCode({ email: acct.email });
      const code = (await timed.mail.waitFor(acct.email, 'recoveryEmail')).code!;
      const { accountResetToken } = await timed.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code });
      timed.clock!.advance(timed.config.tokens.accountResetLifetime * 1000 + 1);
      await expectError(timed.accounts.resetPassword(accountResetToken, acct.email, 'too late'), 'INVALID_TOKEN', 401);
    } finally {
      await timed.close();
    }
  });

  it('voids a pending one-time reset code when the password changes (issue 9, hole 10)', async () => {
    const acct = await verifiedAccount(t);
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email: acct.email });
    const { code } = await t.mail.waitFor(acct.email, 'passwordForgotOtp', since);
    await t.accounts.changePassword(acct.sessionToken, acct.email, acct.password, 'a changed password');
    // The code was requested under the old password: it must not outlive it.
    await expectError(t.client.passwordForgotVerifyOtp({ email: acct.email, code: code! }), 'INVALID_VERIFICATION_CODE', 400);
    expect(await t.storage.db.selectFrom('password_forgot_otps').selectAll().where('uid', '=', acct.uid).execute()).toEqual([]);
  });

  it('keeps a single-use token when the request fails schema validation, spends it otherwise (issue 9, hole 10)', async () => {
    const acct = await verifiedAccount(t);
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    const code = (await t.mail.waitFor(acct.email, 'recoveryEmail', t.mail.messages.length - 1)).code!;
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code });
    const { rawRequest } = await import('../../helpers.js');
    const { deriveTokenKeys } = await import('@tessera/protocol');
    const bearer = `Bearer fxar_${deriveTokenKeys('accountResetToken', accountResetToken).tokenId}`;
    // Malformed: authPW too short, an unknown field. The token survives both.
    expectError(await rawRequest(t.url, 'POST', '/account/reset', { body: { authPW: 'ab' }, authorization: bearer }), 'INVALID_PARAMETER', 400);
    expectError(await rawRequest(t.url, 'POST', '/account/reset', { body: { authPW: 'a'.repeat(64), extra: 1 }, authorization: bearer }), 'INVALID_PARAMETER', 400);
    const reset = await t.accounts.resetPassword(accountResetToken, acct.email, 'reset after a typo');
    expect(reset.uid).toBe(acct.uid);
    // Valid, then spent: a second use is refused.
    await expectError(t.accounts.resetPassword(accountResetToken, acct.email, 'again, a new password'), 'INVALID_TOKEN', 401);
  });

  it('a disabled account cannot start a reset, and its sessions stop working (issue 9, hole 10)', async () => {
    const acct = await verifiedAccount(t);
    expect((await t.client.sessionStatus(acct.sessionToken)).uid).toBe(acct.uid);
    await t.storage.db.updateTable('accounts').set({ disabled_at: Date.now() }).where('uid', '=', acct.uid).execute();
    await expectError(t.client.passwordForgotSendCode({ email: acct.email }), 'ACCOUNT_UNKNOWN', 400);
    await expectError(t.accounts.signIn(acct.email, acct.password), 'LOGIN_WITH_INVALID_EMAIL', 400);
    // The session cache trusts an entry for at most SESSION_CACHE_MS and only until this process writes.
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
  });

  it('reset without a session reply, keys need a session, an account without a recovery key has none to name', async () => {
    const acct = await verifiedAccount(t);
    const token = async () => {
      const sent = await t.client.passwordForgotSendCode({ email: acct.email });
      const before = t.mail.messages.length - 1;
      const code = (await t.mail.waitFor(acct.email, 'recoveryEmail', before)).code!;
      return (await t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code })).accountResetToken;
    };
    const { stretchV1 } = await import('@tessera/protocol');
    const v1 = await stretchV1(acct.email, 'v1 reset password');
    expect(await t.client.accountReset(await token(), { authPW: v1.authPW })).toEqual({});
    const missing = await expectError(t.client.accountReset(await token(), { authPW: v1.authPW }, { keys: true }), 'MISSING_PARAMETER', 400);
    expect(missing.body.param).toBe('sessionToken');
    await expectError(t.client.accountReset(await token(), { authPW: v1.authPW, wrapKb: 'a'.repeat(64), recoveryKeyId: 'ab'.repeat(16) }), 'RECOVERY_KEY_NOT_FOUND', 400);
    await expectError(t.client.accountReset(await token(), { authPW: v1.authPW, wrapKb: 'a'.repeat(64) }), 'INVALID_PARAMETER', 400);
    expect((await t.client.accountLogin({ email: acct.email, authPW: v1.authPW })).uid).toBe(acct.uid);
  });

  it('refuses forgot for unknown addresses, and the one-time code for an unconfirmed one', async () => {
    await expectError(t.client.passwordForgotSendCode({ email: newEmail() }), 'ACCOUNT_UNKNOWN', 400);
    // An unconfirmed account resets by emailed code (the code proves the address; issue 22, see
    // accounts/incumbent-compat), not by the one-time code, which needs a confirmed address.
    const email = newEmail();
    await t.accounts.signUp(email, 'unconfirmed password');
    await expectError(t.client.passwordForgotSendOtp({ email }), 'ACCOUNT_UNKNOWN', 400);
    expect(await t.client.passwordForgotSendCode({ email })).toHaveProperty('passwordForgotToken');
  });

  it('sets a first password with /password/create on an account without one', async () => {
    // A passwordless account with a confirmed session, as a linked-account sign-in will make it.
    const { randomHex, stretchV1 } = await import('@tessera/protocol');
    const { oauth, sessions } = t.app.services;
    const clientSecret = randomHex(32);
    await oauth.registerClient(t.storage.db, { id: STUB_CLIENT, name: 'c', imageUri: '', redirectUri: 'https://c.example/', secret: clientSecret, trusted: true, publicClient: false, canGrant: false, allowedScopes: [], createdAt: 1 });
    const email = newEmail('passwordless');
    const stub = await t.client.accountStub({ email, clientId: STUB_CLIENT, clientSecret });
    const { data } = await sessions.create(t.storage.db, { uid: stub.uid, now: Date.now(), ctx: { ip: '127.0.0.1', userAgent: undefined, acceptLanguage: null }, tokenVerificationId: null, mustVerify: false, reason: null, verifiedWith: 'email' });
    const creds = await stretchV1(email, 'first password ever');
    // Without a password there is nothing to prove again (148).
    await expectError(t.client.sessionReauth(data, { email, authPW: creds.authPW }), 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 400);
    const created = await t.client.passwordCreate(data, { authPW: creds.authPW });
    expect(created.passwordCreated).toBeGreaterThan(0);
    expect((await t.client.accountLogin({ email, authPW: creds.authPW })).uid).toBe(stub.uid);
    await expectError(t.client.passwordCreate(data, { authPW: creds.authPW }), 'CANNOT_CREATE_PASSWORD', 400);
  });

  it('refuses /password/create on an account that has a password (206)', async () => {
    const acct = await verifiedAccount(t);
    await expectError(t.client.passwordCreate(acct.sessionToken, { authPW: 'a'.repeat(64) }), 'CANNOT_CREATE_PASSWORD', 400);
  });
});
