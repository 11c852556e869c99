import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { appFor, codeAt, nextStep, twoStepAccount } from './two-step-helpers.js';

// Two-step authentication with an authenticator app (protocol.md §4.6) through the SDK, with
// otpauth as the independent RFC 6238 generator: setup, sign-in to AAL2, replays, wrong codes,
// replacing the app and turning it off.

describe.each(httpDialects())('TOTP (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
  });
  afterAll(async () => t?.close());

  it('enables TOTP, signs in with totp-2fa and reaches AAL2 with a code', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    expect(acct.qrCodeUrl).toMatch(/^data:image\/png;base64,/);
    expect(acct.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await t.client.totpExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true, verified: true });
    // The session that set it up proved the app: AAL2.
    expect((await t.client.sessionStatus(acct.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true });
    const account = await t.client.account(acct.sessionToken);
    expect(account).toMatchObject({ authenticationMethods: ['pwd', 'email', 'otp'], authenticatorAssuranceLevel: 2 });
    expect(await t.client.accountProfile({ sessionToken: acct.sessionToken })).toMatchObject({ authenticationMethods: ['pwd', 'email', 'otp'], authenticatorAssuranceLevel: 2 });
    await t.mail.waitFor(acct.email, 'twoStepEnabled', 0);
    // The secret is not stored in plain text.
    const row = await t.storage.db.selectFrom('totp').selectAll().where('uid', '=', acct.uid).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(acct.secret);

    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password);
    expect(login).toMatchObject({ verificationMethod: 'totp-2fa', verified: false });
    // No email is sent for a two-step sign-in.
    expect(t.mail.messages.slice(since).filter((m) => m.to === acct.email && /verify/i.test(m.template))).toEqual([]);
    await expectError(t.client.account(login.sessionToken).then(() => t.client.recoveryCodesGenerate(login.sessionToken)), 'SESSION_UNVERIFIED');

    // Proving the password again on the waiting session: it still waits for the second factor, no email.
    const creds = await t.accounts.credentialsFor(acct.email, acct.password);
    const reauth = await t.client.sessionReauth(login.sessionToken, { email: acct.email, authPW: creds.authPW });
    expect(reauth).toMatchObject({ verified: false, verificationMethod: 'totp-2fa' });
    expect(t.mail.messages.slice(since).filter((m) => m.to === acct.email && /verify/i.test(m.template))).toEqual([]);

    nextStep(t);
    expect(await t.client.sessionVerifyTotp(login.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    const status = await t.client.sessionStatus(login.sessionToken);
    expect(status).toMatchObject({ state: 'verified', details: { sessionVerified: true, sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true } });
  });

  it('refuses a replayed code, a wrong code and a code from another step window', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    nextStep(t);
    const code = codeAt(t, acct.app);
    const first = await t.accounts.signIn(acct.email, acct.password);
    const second = await t.accounts.signIn(acct.email, acct.password);
    expect(await t.client.sessionVerifyTotp(first.sessionToken, { code })).toEqual({ success: true });
    // The same code again, on another session within its window: refused.
    expect(await t.client.sessionVerifyTotp(second.sessionToken, { code })).toEqual({ success: false });
    expect((await t.client.sessionStatus(second.sessionToken)).state).toBe('unverified');
    // A code of the previous step (still inside the window) is refused too: its step is older than the last spent.
    expect(await t.client.sessionVerifyTotp(second.sessionToken, { code: codeAt(t, acct.app, -1) })).toEqual({ success: false });
    // A wrong code and a code two steps away: refused.
    const wrong = String((Number(codeAt(t, acct.app, 1)) + 1) % 1_000_000).padStart(6, '0');
    expect(await t.client.sessionVerifyTotp(second.sessionToken, { code: wrong === codeAt(t, acct.app, 1) ? '000000' : wrong })).toEqual({ success: false });
    expect(await t.client.sessionVerifyTotp(second.sessionToken, { code: codeAt(t, acct.app, 3) })).toEqual({ success: false });
    // The next step's code (clock skew of one step) is accepted.
    expect(await t.client.sessionVerifyTotp(second.sessionToken, { code: codeAt(t, acct.app, 1) })).toEqual({ success: true });
  });

  it('two racing requests with one code: exactly one succeeds', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    nextStep(t);
    const sessions = await Promise.all([1, 2, 3].map(() => t.accounts.signIn(acct.email, acct.password)));
    const code = codeAt(t, acct.app);
    const results = await Promise.all(sessions.map((s) => t.client.sessionVerifyTotp(s.sessionToken, { code })));
    expect(results.filter((r) => r.success)).toHaveLength(1);
  });

  it('a session confirmed by email before two-step was turned on stays below the account\'s AAL: 222 until a code', { timeout: 120_000 }, async () => {
    // Confirmed while the account had no two-step (a sign-in to a new account needs no email here):
    // at AAL1 on an AAL2 account once two-step is on, so confirmed-session routes refuse it. (A
    // sign-in made after two-step is on is never confirmed by email at all: sessions/second-factor.test.ts.)
    const acct = await verifiedAccount(t, 'two step password');
    const other = await t.accounts.signIn(acct.email, acct.password);
    expect(other.verified).toBe(true);
    const { secret } = await t.client.totpCreate(acct.sessionToken, {});
    const app = appFor(secret);
    expect(await t.client.totpSetupVerify(acct.sessionToken, { code: codeAt(t, app) })).toEqual({ success: true });
    await t.client.totpSetupComplete(acct.sessionToken, {});
    const status = await t.client.sessionStatus(other.sessionToken);
    expect(status.details).toMatchObject({ sessionVerified: true, sessionVerificationMeetsMinimumAAL: false });
    await expectError(t.client.recoveryCodesGenerate(other.sessionToken), 'INSUFFICIENT_AAL');
    await expectError(t.client.totpDestroy(other.sessionToken), 'INSUFFICIENT_AAL');
    nextStep(t);
    expect(await t.client.sessionVerifyTotp(other.sessionToken, { code: codeAt(t, app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(other.sessionToken)).details.sessionVerificationMeetsMinimumAAL).toBe(true);
    expect((await t.client.recoveryCodesGenerate(other.sessionToken)).recoveryCodes).toHaveLength(8);
  });

  it('create: 154 once two-step is on; setup/complete without a verified code: 155; login asking totp-2fa without TOTP: 160', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    await expectError(t.client.totpCreate(acct.sessionToken, {}), 'TOTP_TOKEN_EXISTS');
    const plain = await twoStepAccount(t).then(async (a) => {
      await t.client.totpDestroy(a.sessionToken);
      return a;
    });
    await t.client.totpCreate(plain.sessionToken, {});
    await expectError(t.client.totpSetupComplete(plain.sessionToken, {}), 'TOTP_TOKEN_NOT_FOUND');
    await expectError(t.accounts.signIn(plain.email, plain.password, { verificationMethod: 'totp-2fa' }), 'TOTP_REQUIRED');
  });

  it('replaces the app: the old app stops working, the new one signs in', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const since = t.mail.messages.length;
    const { secret } = await t.client.totpReplaceStart(acct.sessionToken, {});
    const newApp = appFor(secret);
    nextStep(t);
    // Until confirmed, the old app still signs in.
    const before = await t.accounts.signIn(acct.email, acct.password);
    expect(await t.client.sessionVerifyTotp(before.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    expect(await t.client.totpReplaceConfirm(acct.sessionToken, { code: '000000' === codeAt(t, newApp) ? '111111' : '000000' })).toEqual({ success: false });
    nextStep(t);
    expect(await t.client.totpReplaceConfirm(acct.sessionToken, { code: codeAt(t, newApp) })).toEqual({ success: true });
    await t.mail.waitFor(acct.email, 'twoStepReplaced', since);
    nextStep(t);
    const login = await t.accounts.signIn(acct.email, acct.password);
    if (codeAt(t, acct.app) !== codeAt(t, newApp)) {
      expect(await t.client.sessionVerifyTotp(login.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: false });
    }
    expect(await t.client.sessionVerifyTotp(login.sessionToken, { code: codeAt(t, newApp) })).toEqual({ success: true });
    await expectError(t.client.totpReplaceConfirm(acct.sessionToken, { code: codeAt(t, newApp) }), 'TOTP_TOKEN_NOT_FOUND');
  });

  it('destroy turns two-step off: sign-ins no longer wait for a code, the codes go', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    await t.client.recoveryCodesGenerate(acct.sessionToken);
    const since = t.mail.messages.length;
    await t.client.totpDestroy(acct.sessionToken);
    await t.mail.waitFor(acct.email, 'twoStepDisabled', since);
    expect(await t.client.totpExists({ sessionToken: acct.sessionToken })).toEqual({ exists: false, verified: false });
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: false, count: 0 });
    expect(await t.client.account(acct.sessionToken)).toMatchObject({ authenticationMethods: ['pwd', 'email'], authenticatorAssuranceLevel: 1 });
    expect(await t.client.accountProfile({ sessionToken: acct.sessionToken })).toMatchObject({ authenticationMethods: ['pwd', 'email'], authenticatorAssuranceLevel: 1 });
    const login = await t.accounts.signIn(acct.email, acct.password);
    expect(login.verificationMethod).not.toBe('totp-2fa');
  });

  it('wrong codes count against the account\'s budget of wrong codes (then 429/114)', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const login = await t.accounts.signIn(acct.email, acct.password);
    const right = codeAt(t, acct.app);
    const wrongCodes = ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777', '888888', '999999', '123456', '654321']
      .filter((c) => ![codeAt(t, acct.app, -1), right, codeAt(t, acct.app, 1)].includes(c));
    let throttled = false;
    for (const code of wrongCodes) {
      try {
        expect(await t.client.sessionVerifyTotp(login.sessionToken, { code })).toEqual({ success: false });
      } catch (err) {
        expect((err as { errno?: number }).errno).toBe(114);
        throttled = true;
        break;
      }
    }
    expect(throttled).toBe(true);
  });
});
