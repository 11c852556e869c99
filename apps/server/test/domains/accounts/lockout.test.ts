import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TesseraClient } from '@tessera/client';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { codeAt, nextStep, twoStepAccount } from '../two-step/two-step-helpers.js';

// Issue 22, hole 2: anyone who knows an address could lock its owner out for a day. /account/login
// spent a guessed unblockCode (and counted it on the account's budget of wrong codes) before the
// password; so did the reset codes and the second factor checked with a forgot token anyone gets.
// Guesses that need no credential now count on a budget of their own (reset codes), an unblock
// code is only considered with the right password, and a forgot token must have proven the
// address before it checks a second factor. And (the "class" point) every budget an
// unauthenticated request can spend is spent here, and the owner still signs in.

const authPW = () => randomBytes(32).toString('hex');
const randomUnblockCode = () => randomBytes(6).toString('base64').replace(/[^A-Za-z0-9]/g, 'A').slice(0, 8).toUpperCase();
const wrongDigits = (n: number) => '0'.repeat(n - 1) + '1';

/** A client that speaks from `ip` (behind TRUST_PROXY): an attacker with many addresses. */
function attackerFrom(t: TestServer, ip: () => string): TesseraClient {
  return new TesseraClient({
    baseUrl: t.url, presentation: 'bearer', busyRetries: 0,
    ...(t.clock ? { now: () => t.clock!.now() / 1000 } : {}),
    fetch: (input, init = {}) => fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': ip() } }),
  });
}

/** Settles a call, whatever it answers: the attacker does not care. */
const attempt = (p: Promise<unknown>) => p.then(() => 'ok', (err: { errno?: number }) => err.errno ?? 'error');

describe.each(httpDialects())('guesses without credentials cannot lock the owner out (%s)', (dialect) => {
  describe('the budgets alone (rate limiting does not count this client)', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await createTestServer({
        dialect, manualClock: true,
        env: {
          SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0', ACCOUNT_CODE_MAX_FAILURES: '20',
          // As in sessions/code-budgets: the budgets must hold for guesses spread over many addresses.
          RATE_LIMIT_IGNORE_IPS: '127.0.0.1',
        },
      });
    });
    afterAll(async () => t?.close());

    it('random unblock codes with random passwords spend nothing of the owner\'s; the owner confirms a sign-in by code', async () => {
      const owner = await verifiedAccount(t);
      // No unblock code was ever issued; the attacker does not have the password.
      for (let i = 0; i < 25; i++) await attempt(t.client.accountLogin({ email: owner.email, authPW: authPW(), unblockCode: randomUnblockCode() }));
      // Without the password the code is not even considered: a wrong password is all they learn.
      await expectError(t.client.accountLogin({ email: owner.email, authPW: authPW(), unblockCode: randomUnblockCode() }), 'INCORRECT_PASSWORD');
      const since = t.mail.messages.length;
      const signIn = await t.accounts.signIn(owner.email, owner.password, { verificationMethod: 'email-otp' });
      const code = (await t.mail.waitFor(owner.email, 'verifyLoginCode', since)).code!;
      await t.client.sessionVerifyCode(signIn.sessionToken, { code });
      expect((await t.client.sessionStatus(signIn.sessionToken)).state).toBe('verified');
    });

    it('wrong reset codes (one-time codes by address, codes of forgot tokens the attacker asked for) count apart: the owner\'s sign-in code still works', async () => {
      const owner = await verifiedAccount(t);
      for (let round = 0; round < 4; round++) {
        await t.client.passwordForgotSendOtp({ email: owner.email });
        for (let i = 0; i < 5; i++) await attempt(t.client.passwordForgotVerifyOtp({ email: owner.email, code: wrongDigits(8) }));
        const { passwordForgotToken } = await t.client.passwordForgotSendCode({ email: owner.email });
        for (let i = 0; i < 3; i++) await attempt(t.client.passwordForgotVerifyCode(passwordForgotToken, { code: wrongDigits(8) }));
      }
      // The reset codes' own budget is spent: the right one-time code is refused for now…
      const since = t.mail.messages.length;
      await t.client.passwordForgotSendOtp({ email: owner.email });
      const otp = (await t.mail.waitFor(owner.email, 'passwordForgotOtp', since)).code!;
      await expectError(t.client.passwordForgotVerifyOtp({ email: owner.email, code: otp }), 'THROTTLED', 429);
      // …but the owner's own confirmation is untouched.
      const signInSince = t.mail.messages.length;
      const signIn = await t.accounts.signIn(owner.email, owner.password, { verificationMethod: 'email-otp' });
      const code = (await t.mail.waitFor(owner.email, 'verifyLoginCode', signInSince)).code!;
      await t.client.sessionVerifyCode(signIn.sessionToken, { code });
      expect((await t.client.sessionStatus(signIn.sessionToken)).state).toBe('verified');
    });

    it('a forgot token nobody proved cannot guess at the second factor: the owner\'s app code still confirms the sign-in', { timeout: 60_000 }, async () => {
      const owner = await twoStepAccount(t);
      for (let round = 0; round < 7; round++) {
        const { passwordForgotToken } = await t.client.passwordForgotSendCode({ email: owner.email });
        for (let i = 0; i < 3; i++) await attempt(t.client.totpVerify(passwordForgotToken, { code: '000000' === codeAt(t, owner.app) ? '111111' : '000000' }));
        await attempt(t.client.totpVerifyRecoveryCode(passwordForgotToken, { code: 'abcdefghjk' }));
      }
      nextStep(t);
      const signIn = await t.accounts.signIn(owner.email, owner.password);
      expect(signIn.verificationMethod).toBe('totp-2fa');
      expect(await t.client.sessionVerifyTotp(signIn.sessionToken, { code: codeAt(t, owner.app) })).toEqual({ success: true });
      expect((await t.client.sessionStatus(signIn.sessionToken)).state).toBe('verified');
    });
  });

  describe('the mailbox without the second factor (rate limiting does not count this client)', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await createTestServer({ dialect, manualClock: true, env: { ACCOUNT_CODE_MAX_FAILURES: '20', ACCOUNT_RESET_CODE_MAX_FAILURES: '20', RATE_LIMIT_IGNORE_IPS: '127.0.0.1' } });
    });
    afterAll(async () => t?.close());

    it('wrong app and backup codes during a reset spend the reset budget, not the one the owner signs in with', { timeout: 60_000 }, async () => {
      const owner = await twoStepAccount(t);
      // Someone who reads the mail (not the phone) starts resets and guesses at the app.
      for (let round = 0; round < 4; round++) {
        const since = t.mail.messages.length;
        await t.client.passwordForgotSendOtp({ email: owner.email });
        const otp = (await t.mail.waitFor(owner.email, 'passwordForgotOtp', since)).code!;
        const forgot = await t.client.passwordForgotVerifyOtp({ email: owner.email, code: otp });
        for (let i = 0; i < 4; i++) await attempt(t.client.totpVerify(forgot.token, { code: codeAt(t, owner.app) === '000000' ? '111111' : '000000' }));
        await attempt(t.client.totpVerifyRecoveryCode(forgot.token, { code: 'abcdefghjk' }));
      }
      // 20 wrong codes: the reset budget is spent, and resets wait (even with the right one-time code)…
      const since = t.mail.messages.length;
      await t.client.passwordForgotSendOtp({ email: owner.email });
      const otp = (await t.mail.waitFor(owner.email, 'passwordForgotOtp', since)).code!;
      await expectError(t.client.passwordForgotVerifyOtp({ email: owner.email, code: otp }), 'THROTTLED', 429);
      // …while the owner signs in with the password and the app as usual.
      nextStep(t);
      const signIn = await t.accounts.signIn(owner.email, owner.password);
      expect(await t.client.sessionVerifyTotp(signIn.sessionToken, { code: codeAt(t, owner.app) })).toEqual({ success: true });
    });
  });

  describe('everything an address alone can spend, rate limiting on', () => {
    let t: TestServer;
    beforeAll(async () => {
      // Behind a proxy, so the attacker can speak from many client addresses; the owner speaks from 127.0.0.1.
      t = await createTestServer({ dialect, manualClock: true, env: { TRUST_PROXY: 'true', SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
    });
    afterAll(async () => t?.close());

    /**
     * The attacker knows the address (and, being thorough, the uid) and nothing else, and spends
     * every budget that takes no credential, from as many client addresses as it needs.
     */
    async function exhaustEverything(owner: { email: string; uid: string }) {
      let n = 0;
      let ip = '198.51.100.1';
      const fresh = () => { n++; ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`; };
      const attacker = attackerFrom(t, () => ip);
      const email = owner.email;
      // Each block below runs from new addresses until the per-address rules stop mattering.
      for (let i = 0; i < 60; i++) {
        if (i % 4 === 0) fresh();
        // Sign-in with random passwords and random unblock codes (accountLogin per email: 50 a day).
        await attempt(attacker.accountLogin({ email, authPW: authPW(), unblockCode: randomUnblockCode() }));
        await attempt(attacker.accountLogin({ email, authPW: authPW() }));
      }
      for (let i = 0; i < 15; i++) {
        fresh();
        // Unblock codes mailed to the owner (sendUnblockCode per email: 10 a day), and "not me" for codes it guesses.
        await attempt(attacker.accountLoginSendUnblockCode({ email }));
        await attempt(attacker.accountLoginRejectUnblockCode({ uid: owner.uid, unblockCode: randomUnblockCode() }));
      }
      for (let i = 0; i < 25; i++) {
        fresh();
        // Reset by one-time code: sends (20 a day per email) and wrong codes (the reset budget).
        await attempt(attacker.passwordForgotSendOtp({ email }));
        for (let k = 0; k < 5; k++) await attempt(attacker.passwordForgotVerifyOtp({ email, code: wrongDigits(8) }));
        // Reset by emailed code: the forgot token is the attacker's; its code is not.
        const sent = await attacker.passwordForgotSendCode({ email }).catch(() => null);
        if (sent) {
          const token = sent.passwordForgotToken;
          for (let k = 0; k < 3; k++) await attempt(attacker.passwordForgotVerifyCode(token, { code: wrongDigits(8) }));
          await attempt(attacker.passwordForgotResendCode(token, { email }));
          await attempt(attacker.passwordForgotStatus(token));
          // What the token might reach of the second factor and the recovery key.
          await attempt(attacker.totpExists({ passwordForgotToken: token }));
          await attempt(attacker.totpVerify(token, { code: '123456' }));
          await attempt(attacker.totpVerifyRecoveryCode(token, { code: 'abcdefghjk' }));
          await attempt(attacker.recoveryCodesExists({ passwordForgotToken: token }));
          await attempt(attacker.recoveryPhone({ passwordForgotToken: token }));
          await attempt(attacker.recoveryPhoneResetPasswordSendCode(token, {}));
          await attempt(attacker.recoveryPhoneResetPasswordConfirm(token, { code: '123456' }));
          await attempt(attacker.recoveryKeyExists({ passwordForgotToken: token }));
        }
        // Existence checks.
        await attempt(attacker.accountStatusByEmail({ email, thirdPartyAuthStatus: true }));
        await attempt(attacker.accountStatus(undefined, { uid: owner.uid }));
        await attempt(attacker.accountCredentialsStatus({ email }));
        await attempt(attacker.recoveryKeyExists(undefined, { email }));
      }
      // Sanity: the attacker did reach the limits that could stand in the owner's way.
      fresh();
      await expectError(attacker.accountLogin({ email, authPW: authPW() }), 'REQUEST_BLOCKED');
      await expectError(attacker.accountLoginSendUnblockCode({ email }), 'THROTTLED', 429);
      await expectError(attacker.passwordForgotSendOtp({ email }), 'THROTTLED', 429);
    }

    /** The owner, from its own address: blocked, asks for an unblock code, signs in with the last one mailed. */
    async function ownerSignsIn(owner: { email: string; password: string }) {
      // The sign-in is blocked for the address (the attacker's accountLogin per email)…
      const blocked = await expectError(t.accounts.signIn(owner.email, owner.password), 'REQUEST_BLOCKED');
      expect(blocked.body.verificationMethod).toBe('email-captcha');
      // …and so are new unblock mails to it (the attacker had them all sent). The last one mailed
      // stays valid while they are capped: asking again keeps it alive instead of mailing another.
      const mailsBefore = t.mail.count(owner.email);
      const capped = await expectError(t.accounts.sendUnblockCode(owner.email), 'THROTTLED', 429);
      expect(capped.body.message).toMatch(/last unblock code/);
      expect(t.mail.count(owner.email)).toBe(mailsBefore);
      const code = t.mail.last(owner.email, 'unblockCode')!.code!;
      return t.accounts.signIn(owner.email, owner.password, { unblockCode: code });
    }

    it('the owner of an account without two-step signs in, confirmed by the unblock code, after the attacker spent everything (even hours later)', { timeout: 180_000 }, async () => {
      const owner = await verifiedAccount(t);
      await exhaustEverything(owner);
      // The attacker stops; the owner comes back two hours later, after the last code's hour.
      t.clock!.advance(2 * 3600_000);
      const signedIn = await ownerSignsIn(owner);
      expect(signedIn.verified).toBe(true);
      expect((await t.client.sessionStatus(signedIn.sessionToken)).state).toBe('verified');
    });

    it('the owner of a two-step account signs in with the unblock code and confirms with the app', { timeout: 180_000 }, async () => {
      const owner = await twoStepAccount(t);
      await exhaustEverything(owner);
      const signedIn = await ownerSignsIn(owner);
      expect(signedIn.verificationMethod).toBe('totp-2fa');
      nextStep(t);
      expect(await t.client.sessionVerifyTotp(signedIn.sessionToken, { code: codeAt(t, owner.app) })).toEqual({ success: true });
      const status = await t.client.sessionStatus(signedIn.sessionToken);
      expect(status.state).toBe('verified');
    });
  });
});
