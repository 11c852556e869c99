import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { codeAt, nextStep, twoStepAccount } from './two-step-helpers.js';

// Backup authentication codes (protocol.md §4.7) and the password reset of a two-step account
// (§4.5 step 5): codes are single use and stored hashed; a lost phone is recovered with one; the
// mailbox alone does not reset the password of a two-step account (138).

describe.each(httpDialects())('backup codes and resets (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
  });
  afterAll(async () => t?.close());

  /** Forgot password by the 8-digit code, up to the forgot token. */
  async function forgotToken(email: string) {
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email });
    const otp = (await t.mail.waitFor(email, 'passwordForgotOtp', since)).code!;
    return t.client.passwordForgotVerifyOtp({ email, code: otp });
  }

  it('generates 8 codes stored hashed; each signs in once; exhausting them; the low-count email', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    let since = t.mail.messages.length;
    const { recoveryCodes } = await t.client.recoveryCodesGenerate(acct.sessionToken);
    expect(recoveryCodes).toHaveLength(8);
    for (const c of recoveryCodes) expect(c).toMatch(/^[0-9a-hjkmnp-tv-z]{10}$/);
    expect(new Set(recoveryCodes).size).toBe(8);
    await t.mail.waitFor(acct.email, 'backupCodesReplaced', since);
    const rows = await t.storage.db.selectFrom('recovery_codes').selectAll().where('uid', '=', acct.uid).execute();
    expect(rows).toHaveLength(8);
    for (const c of recoveryCodes) expect(JSON.stringify(rows)).not.toContain(c);
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: true, count: 8 });

    // One waiting sign-in, copied (a copy waits in the same state): sign-ins are rate limited per address.
    const waiting = await t.accounts.signIn(acct.email, acct.password);
    const copy = async () => ({ sessionToken: (await t.client.sessionDuplicate(waiting.sessionToken, {})).sessionToken });
    for (const [i, code] of recoveryCodes.entries()) {
      // Backup code checks are rate limited per account and client address (10 per 15 minutes).
      if (i % 4 === 0) t.clock!.advance(16 * 60_000);
      const login = await copy();
      since = t.mail.messages.length;
      // Typed in capitals: codes compare without case.
      expect(await t.client.sessionVerifyRecoveryCode(login.sessionToken, { code: i === 0 ? code.toUpperCase() : code })).toEqual({ remaining: 7 - i });
      expect((await t.client.sessionStatus(login.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'recovery-code', sessionVerificationMeetsMinimumAAL: true });
      const mail = await t.mail.waitFor(acct.email, 'backupCodeUsed', since);
      expect(mail.text.includes('running low')).toBe(7 - i <= 2);
      // Used once: never again.
      const again = await copy();
      await expectError(t.client.sessionVerifyRecoveryCode(again.sessionToken, { code }), 'RECOVERY_CODE_NOT_FOUND');
    }
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: false, count: 0 });
  });

  it('two racing uses of one code: exactly one confirms its session', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const { recoveryCodes } = await t.client.recoveryCodesGenerate(acct.sessionToken);
    const sessions = await Promise.all([1, 2, 3].map(() => t.accounts.signIn(acct.email, acct.password)));
    const results = await Promise.allSettled(sessions.map((s) => t.client.sessionVerifyRecoveryCode(s.sessionToken, { code: recoveryCodes[0]! })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('client-made codes (POST and PUT): 1–8 unique codes of 8–20 letters or digits', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    expect(await t.client.recoveryCodesSet(acct.sessionToken, { recoveryCodes: ['abcdefgh12', 'ABCDEFGH34'] })).toEqual({ success: true });
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: true, count: 2 });
    expect(await t.client.recoveryCodesUpdate(acct.sessionToken, { recoveryCodes: ['zzzzzzzz99'] })).toEqual({ success: true });
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: true, count: 1 });
    await expectError(t.client.recoveryCodesSet(acct.sessionToken, { recoveryCodes: ['abcdefgh12', 'ABCDEFGH12'] }), 'INVALID_PARAMETER');
    await expectError(t.client.recoveryCodesSet(acct.sessionToken, { recoveryCodes: ['short'] }), 'INVALID_PARAMETER');
    await expectError(t.client.recoveryCodesSet(acct.sessionToken, { recoveryCodes: ['has space 12'] }), 'INVALID_PARAMETER');
    await expectError(t.client.recoveryCodesSet(acct.sessionToken, { recoveryCodes: Array.from({ length: 9 }, (_, i) => `abcdefgh${i}x`) }), 'INVALID_PARAMETER');
    await expectError(t.client.recoveryCodesSet(acct.sessionToken, { recoveryCodes: [] }), 'INVALID_PARAMETER');
    // The old codes are gone.
    const login = await t.accounts.signIn(acct.email, acct.password);
    await expectError(t.client.sessionVerifyRecoveryCode(login.sessionToken, { code: 'abcdefgh12' }), 'RECOVERY_CODE_NOT_FOUND');
    expect(await t.client.sessionVerifyRecoveryCode(login.sessionToken, { code: 'ZZZZZZZZ99' })).toEqual({ remaining: 0 });
  });

  it('loses the phone: signs in with a backup code, replaces the app, keeps the account', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t, 'lost phone password', { keys: true });
    const { recoveryCodes } = await t.client.recoveryCodesGenerate(acct.sessionToken);
    // A new device, no phone: the sign-in waits; keys are refused until the second factor.
    const login = await t.accounts.signIn(acct.email, acct.password, { keys: true });
    expect(login.verificationMethod).toBe('totp-2fa');
    await expectError(t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey), 'ACCOUNT_UNVERIFIED');
    expect(await t.client.sessionVerifyRecoveryCode(login.sessionToken, { code: recoveryCodes[3]! })).toEqual({ remaining: 7 });
    const keys = await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey);
    expect(keys.kB).toMatch(/^[0-9a-f]{64}$/);
    // The confirmed session sets up a new phone.
    const { secret } = await t.client.totpReplaceStart(login.sessionToken, {});
    const { appFor } = await import('./two-step-helpers.js');
    const newApp = appFor(secret);
    nextStep(t);
    expect(await t.client.totpReplaceConfirm(login.sessionToken, { code: codeAt(t, newApp) })).toEqual({ success: true });
    nextStep(t);
    const later = await t.accounts.signIn(acct.email, acct.password);
    expect(await t.client.sessionVerifyTotp(later.sessionToken, { code: codeAt(t, newApp) })).toEqual({ success: true });
  });

  it('backup code routes without two-step: 160; unknown code: 156', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const login = await t.accounts.signIn(acct.email, acct.password);
    await expectError(t.client.sessionVerifyRecoveryCode(login.sessionToken, { code: 'notacode99' }), 'RECOVERY_CODE_NOT_FOUND');
    await t.client.totpDestroy(acct.sessionToken);
    await expectError(t.client.sessionVerifyRecoveryCode(acct.sessionToken, { code: 'notacode99' }), 'TOTP_REQUIRED');
  });

  it('forgot password on a two-step account: 138 with the mailbox alone; the app code or a backup code lets the reset through', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t, 'forgot with totp');
    const { recoveryCodes } = await t.client.recoveryCodesGenerate(acct.sessionToken);

    // The mailbox alone: the reset token cannot reset (138), and nothing changes.
    let forgot = await forgotToken(acct.email);
    expect(await t.client.totpExists({ passwordForgotToken: forgot.token })).toEqual({ exists: true, verified: true });
    expect(await t.client.recoveryCodesExists({ passwordForgotToken: forgot.token })).toEqual({ hasBackupCodes: true, count: 8 });
    let reset = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    await expectError(t.accounts.resetPassword(reset.accountResetToken, forgot.emailToHashWith, 'a new password one'), 'SESSION_UNVERIFIED');
    await t.accounts.signIn(acct.email, acct.password);

    // With a wrong app code: still refused.
    forgot = await forgotToken(acct.email);
    nextStep(t);
    expect(await t.client.totpVerify(forgot.token, { code: codeAt(t, acct.app) === '000000' ? '111111' : '000000' })).toEqual({ success: false });
    reset = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    await expectError(t.accounts.resetPassword(reset.accountResetToken, forgot.emailToHashWith, 'a new password one'), 'SESSION_UNVERIFIED');

    // With the app's code: the reset goes through, its session at AAL2; two-step stays on.
    forgot = await forgotToken(acct.email);
    expect(await t.client.totpVerify(forgot.token, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    reset = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    const done = await t.accounts.resetPassword(reset.accountResetToken, forgot.emailToHashWith, 'a new password one');
    expect(done.verificationMethod).toBe('totp-2fa');
    expect((await t.client.sessionStatus(done.sessionToken!)).details.sessionVerificationMeetsMinimumAAL).toBe(true);
    expect(await t.client.totpExists({ sessionToken: done.sessionToken! })).toEqual({ exists: true, verified: true });

    // With a backup code.
    forgot = await forgotToken(acct.email);
    expect(await t.client.totpVerifyRecoveryCode(forgot.token, { code: recoveryCodes[0]! })).toEqual({ remaining: 7 });
    await expectError(t.client.totpVerifyRecoveryCode(forgot.token, { code: recoveryCodes[0]! }), 'RECOVERY_CODE_NOT_FOUND');
    reset = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    const again = await t.accounts.resetPassword(reset.accountResetToken, forgot.emailToHashWith, 'a new password two');
    expect(again.verificationMethod).toBe('recovery-code');
    const login = await t.accounts.signIn(acct.email, 'a new password two');
    expect(login.verificationMethod).toBe('totp-2fa');
  });

  it('forgot password on a two-step account with a recovery key: the key lets the reset through without the second factor', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t, 'forgot with key', { keys: true });
    const login = await t.accounts.signIn(acct.email, acct.password, { keys: true });
    nextStep(t);
    await t.client.sessionVerifyTotp(login.sessionToken, { code: codeAt(t, acct.app) });
    const { kB } = await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey);
    const { recoveryKey } = await t.accounts.createRecoveryKey(login.sessionToken, acct.uid, kB);
    const forgot = await forgotToken(acct.email);
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    const done = await t.accounts.resetPasswordWithRecoveryKey({ accountResetToken, uid: forgot.uid, email: forgot.emailToHashWith }, recoveryKey, 'key reset password', { keys: true });
    // The new session is confirmed by email only: below the account's AAL until a code.
    expect((await t.client.sessionStatus(done.sessionToken!)).details.sessionVerificationMeetsMinimumAAL).toBe(false);
    nextStep(t);
    expect(await t.client.sessionVerifyTotp(done.sessionToken!, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(done.sessionToken!)).details.sessionVerificationMeetsMinimumAAL).toBe(true);
  });
});
