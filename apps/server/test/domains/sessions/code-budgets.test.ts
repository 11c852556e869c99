import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

// Issue 9, hole 3: the guess budget of codes does not reset on resend. Landed code let 24 wrong
// guesses and then the right one confirm a session (5 tries per code, a fresh code per resend).
describe.each(httpDialects())('code guess budgets across resends (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({
      dialect, manualClock: true,
      env: {
        SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0', SIGNIN_CODE_TRIES: '5',
        SIGNIN_CODE_MAX_FAILURES_PER_SESSION: '8', ACCOUNT_CODE_MAX_FAILURES: '12', ACCOUNT_RESET_CODE_MAX_FAILURES: '12', ACCOUNT_CODE_FAILURE_WINDOW_SECONDS: '3600',
        // The budgets must hold on their own, for guesses spread over addresses that rate limiting
        // counts separately (a botnet): here rate limiting does not count this client at all.
        RATE_LIMIT_IGNORE_IPS: '127.0.0.1',
      },
    });
  });
  afterAll(async () => t?.close());

  const wrongFor = (code: string) => (code === '123456' ? '654321' : '123456');

  /** A new sign-in that waits on an emailed code, and that code. */
  async function pendingSignIn(acct: { email: string; password: string }) {
    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    const mail = await t.mail.waitFor(acct.email, 'verifyLoginCode', since);
    return { sessionToken: login.sessionToken, code: mail.code! };
  }

  async function resend(acct: { email: string }, sessionToken: string) {
    const since = t.mail.messages.length;
    await t.client.sessionResendCode(sessionToken);
    return (await t.mail.waitFor(acct.email, 'verifyLoginCode', since)).code!;
  }

  it('ends the session when its wrong codes across resends reach the limit; the right code cannot revive it', async () => {
    const acct = await verifiedAccount(t);
    const { sessionToken, code } = await pendingSignIn(acct);
    for (let i = 0; i < 5; i++) await expectError(t.client.sessionVerifyCode(sessionToken, { code: wrongFor(code) }), 'INVALID_EXPIRED_OTP_CODE');
    const second = await resend(acct, sessionToken);
    for (let i = 0; i < 2; i++) await expectError(t.client.sessionVerifyCode(sessionToken, { code: wrongFor(second) }), 'INVALID_EXPIRED_OTP_CODE');
    // The eighth wrong code ends the session.
    const ended = await expectError(t.client.sessionVerifyCode(sessionToken, { code: wrongFor(second) }), 'INVALID_TOKEN', 401);
    expect(ended.body.detail).toMatch(/session has ended/);
    await expectError(t.client.sessionVerifyCode(sessionToken, { code: second }), 'INVALID_TOKEN', 401);
    await expectError(t.client.sessionStatus(sessionToken), 'INVALID_TOKEN', 401);
  });

  it('refuses every code of an account that spent its budget, across sessions, until the window ends (429/114)', async () => {
    const acct = await verifiedAccount(t);
    // Two sessions of 5 and 5 wrong codes, then 2 more on a third: 12 for the account.
    for (const n of [5, 5, 2]) {
      const { sessionToken, code } = await pendingSignIn(acct);
      for (let i = 0; i < n; i++) await expectError(t.client.sessionVerifyCode(sessionToken, { code: wrongFor(code) }), 'INVALID_EXPIRED_OTP_CODE');
    }
    const { sessionToken, code } = await pendingSignIn(acct);
    const throttled = await expectError(t.client.sessionVerifyCode(sessionToken, { code }), 'THROTTLED', 429);
    expect(throttled.body.retryAfter).toBeGreaterThan(0);
    expect(throttled.body.retryAfter).toBeLessThanOrEqual(3600);
    // Password-reset codes are a budget of their own (issue 22: anyone may try them), untouched here.
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    const reset = await t.mail.waitFor(acct.email, 'recoveryEmail', t.mail.messages.length - 1);
    expect(await t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: reset.code! })).toHaveProperty('accountResetToken');
    // After the window the right code works again.
    t.clock!.advance(3600 * 1000 + 1000);
    const fresh = await resend(acct, sessionToken);
    await t.client.sessionVerifyCode(sessionToken, { code: fresh });
    expect((await t.client.sessionStatus(sessionToken)).state).toBe('verified');
  });

  it('counts wrong forgot-password codes against the account\'s reset budget, whatever token they came with', async () => {
    const acct = await verifiedAccount(t);
    for (let round = 0; round < 4; round++) {
      const sent = await t.client.passwordForgotSendCode({ email: acct.email });
      const mail = await t.mail.waitFor(acct.email, 'recoveryEmail', t.mail.messages.length - 1);
      const wrong = mail.code === '12345678' ? '87654321' : '12345678';
      for (let i = 0; i < 3; i++) await expectError(t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: wrong }), 'INVALID_VERIFICATION_CODE');
    }
    // 12 wrong codes over four tokens: a fifth token's right code is refused…
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    const mail = await t.mail.waitFor(acct.email, 'recoveryEmail', t.mail.messages.length - 1);
    await expectError(t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: mail.code! }), 'THROTTLED', 429);
    // …and so is a one-time reset code (the same reset budget), while the owner's sign-in codes still work.
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email: acct.email });
    const otp = (await t.mail.waitFor(acct.email, 'passwordForgotOtp', since)).code!;
    await expectError(t.client.passwordForgotVerifyOtp({ email: acct.email, code: otp }), 'THROTTLED', 429);
    const { sessionToken, code } = await pendingSignIn(acct);
    await t.client.sessionVerifyCode(sessionToken, { code });
    expect((await t.client.sessionStatus(sessionToken)).state).toBe('verified');
  });
});
