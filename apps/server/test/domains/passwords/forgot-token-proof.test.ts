import { describe, expect, it } from 'vitest';
import { serverBeside, httpDialects, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { TwilioFake } from '../../twilio-fake.js';
import { codeAt, nextStep, twoStepAccount } from '../two-step/two-step-helpers.js';

// Issue 22, hole 5: /password/forgot/send_code hands a passwordForgotToken to whoever names the
// address, and that token showed the recovery key's hint, whether two-step is on, how many backup
// codes are left, the masked phone number, and made the server text the phone. The hint and the
// second factor now go only to a token whose holder proved the address: the one of
// /password/forgot/verify_otp (the emailed one-time code). The reset of a two-step account by that
// flow (the incumbent's, protocol.md §4.5) still completes with the app, a backup code or the phone.

const PHONE = '+14155550123';

describe.each(httpDialects())('what a password forgot token reaches (%s)', (dialect) => {
  let t: TestServer;
  const twilio = new TwilioFake();
  serverBeside([twilio], { dialect, manualClock: true }, (server) => (t = server));

  /** A two-step account with backup codes, a recovery phone and a recovery key with a hint. */
  async function fullyEquipped() {
    const acct = await twoStepAccount(t, 'equipped password', { keys: true });
    const { recoveryCodes } = await t.client.recoveryCodesGenerate(acct.sessionToken);
    const since = twilio.messages.length;
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    await t.client.recoveryPhoneConfirm(acct.sessionToken, { code: twilio.codeFor(PHONE, since) });
    const signedIn = await t.accounts.signIn(acct.email, acct.password, { keys: true });
    nextStep(t);
    await t.client.sessionVerifyTotp(signedIn.sessionToken, { code: codeAt(t, acct.app) });
    const keys = await t.accounts.fetchKeys(signedIn.keyFetchToken!, signedIn.unwrapBKey);
    await t.accounts.createRecoveryKey(signedIn.sessionToken, acct.uid, keys.kB, { hint: 'in the blue notebook' });
    return { ...acct, recoveryCodes };
  }

  /** The incumbent's flow: the emailed one-time code, exchanged for a forgot token (which proved the address). */
  async function otpForgotToken(email: string) {
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email });
    const otp = (await t.mail.waitFor(email, 'passwordForgotOtp', since)).code!;
    return t.client.passwordForgotVerifyOtp({ email, code: otp });
  }

  it('a token of send_code (anyone naming the address gets one) learns no hint, no second factor, and sends no SMS', { timeout: 120_000 }, async () => {
    const acct = await fullyEquipped();
    const { passwordForgotToken: token } = await t.client.passwordForgotSendCode({ email: acct.email });
    // Only what anyone may ask by address: whether a key exists.
    expect(await t.client.recoveryKeyExists({ passwordForgotToken: token })).toEqual({ exists: true });
    await expectError(t.client.totpExists({ passwordForgotToken: token }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryCodesExists({ passwordForgotToken: token }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryPhone({ passwordForgotToken: token }), 'SESSION_UNVERIFIED', 400);
    const smsBefore = twilio.messages.length;
    await expectError(t.client.recoveryPhoneResetPasswordSendCode(token, {}), 'SESSION_UNVERIFIED', 400);
    expect(twilio.messages.length).toBe(smsBefore);
    // Nor can it pass (or guess at) the second factor.
    await expectError(t.client.totpVerify(token, { code: codeAt(t, acct.app) }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.totpVerifyRecoveryCode(token, { code: acct.recoveryCodes[0]! }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryPhoneResetPasswordConfirm(token, { code: '123456' }), 'SESSION_UNVERIFIED', 400);
    // The backup code was not spent by that attempt.
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: true, count: 8 });
  });

  it('a sign-in that proved only the password learns whether a key exists, not its hint', { timeout: 120_000 }, async () => {
    const acct = await fullyEquipped();
    const waiting = await t.accounts.signIn(acct.email, acct.password);
    expect(waiting.verificationMethod).toBe('totp-2fa');
    expect(await t.client.recoveryKeyExists({ sessionToken: waiting.sessionToken })).toEqual({ exists: true });
    nextStep(t);
    await t.client.sessionVerifyTotp(waiting.sessionToken, { code: codeAt(t, acct.app) });
    expect(await t.client.recoveryKeyExists({ sessionToken: waiting.sessionToken })).toEqual({ exists: true, hint: 'in the blue notebook' });
  });

  it('the token of verify_otp (the emailed code proved the address) sees them and resets with the app code', { timeout: 120_000 }, async () => {
    const acct = await fullyEquipped();
    const forgot = await otpForgotToken(acct.email);
    expect(await t.client.recoveryKeyExists({ passwordForgotToken: forgot.token })).toEqual({ exists: true, hint: 'in the blue notebook' });
    expect(await t.client.totpExists({ passwordForgotToken: forgot.token })).toEqual({ exists: true, verified: true });
    expect(await t.client.recoveryCodesExists({ passwordForgotToken: forgot.token })).toEqual({ hasBackupCodes: true, count: 8 });
    expect(await t.client.recoveryPhone({ passwordForgotToken: forgot.token })).toEqual({ exists: true, phoneNumber: '+1••••••0123' });
    nextStep(t);
    expect(await t.client.totpVerify(forgot.token, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    const done = await t.accounts.resetPassword(accountResetToken, forgot.emailToHashWith, 'a brand new password');
    expect(done.verificationMethod).toBe('totp-2fa');
  });

  it('the token of verify_otp resets with a backup code, and with the recovery phone', { timeout: 120_000 }, async () => {
    const acct = await fullyEquipped();
    let forgot = await otpForgotToken(acct.email);
    expect(await t.client.totpVerifyRecoveryCode(forgot.token, { code: acct.recoveryCodes[0]! })).toEqual({ remaining: 7 });
    let reset = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    expect((await t.accounts.resetPassword(reset.accountResetToken, forgot.emailToHashWith, 'second new password')).verificationMethod).toBe('recovery-code');

    forgot = await otpForgotToken(acct.email);
    const smsSince = twilio.messages.length;
    await t.client.recoveryPhoneResetPasswordSendCode(forgot.token, {});
    expect(await t.client.recoveryPhoneResetPasswordConfirm(forgot.token, { code: twilio.codeFor(PHONE, smsSince) })).toEqual({});
    reset = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    expect((await t.accounts.resetPassword(reset.accountResetToken, forgot.emailToHashWith, 'third new password')).verificationMethod).toBe('sms-2fa');
  });

  it('a send_code token whose code was verified resets an account without two-step as before; a two-step account needs the recovery key', { timeout: 120_000 }, async () => {
    const acct = await fullyEquipped();
    const since = t.mail.messages.length;
    const { passwordForgotToken } = await t.client.passwordForgotSendCode({ email: acct.email });
    const code = (await t.mail.waitFor(acct.email, 'recoveryEmail', since)).code!;
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(passwordForgotToken, { code });
    await expectError(t.accounts.resetPassword(accountResetToken, acct.email, 'no second factor'), 'SESSION_UNVERIFIED', 400);
  });
});
