import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, serverBeside, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { expectMfaGuarded, mfaToken } from '../../mfa-helpers.js';
import { TwilioFake } from '../../twilio-fake.js';
import { codeAt, nextStep, twoStepAccount } from '../two-step/two-step-helpers.js';

// The recovery phone (protocol.md §4.9) through the SDK: SMS through the official Twilio SDK against
// a local fake of its Messages API, and through the embedded outbox. Adding, confirming, signing in
// with (AAL2), changing and removing a phone; the reset path; bad numbers; the guess budget that a
// resend does not reset; the /mfa variants' token checks.

const PHONE = '+14155550123';
const OTHER_PHONE = '+16135550123';

/** A two-step account with backup codes: what a recovery phone needs. */
async function phoneReadyAccount(t: TestServer) {
  const acct = await twoStepAccount(t);
  await t.client.recoveryCodesGenerate(acct.sessionToken);
  return acct;
}

describe.each(httpDialects())('recovery phone through the Twilio SDK (%s)', (dialect) => {
  let t: TestServer;
  const twilio = new TwilioFake();
  serverBeside([twilio], { dialect, manualClock: true }, (server) => (t = server));

  /** create + confirm with the texted code. */
  async function addPhone(acct: { sessionToken: string }, phoneNumber = PHONE) {
    const since = twilio.messages.length;
    const created = await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber });
    expect(created).toMatchObject({ success: true });
    if (phoneNumber === PHONE) expect(created.nationalFormat).toBe('(415) 555-0123');
    return t.client.recoveryPhoneConfirm(acct.sessionToken, { code: twilio.codeFor(phoneNumber, since) });
  }

  it('adds and confirms a phone, signs in with it to AAL2, changes it and removes it', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    expect(await t.client.recoveryPhone({ sessionToken: acct.sessionToken })).toEqual({ exists: false });
    expect(await t.client.recoveryPhoneAvailable(acct.sessionToken)).toEqual({ available: true });

    const since = twilio.messages.length;
    expect(await addPhone(acct)).toEqual({ success: true });
    const sms = twilio.messages.slice(since);
    expect(sms).toHaveLength(1);
    expect(sms[0]).toMatchObject({ accountSid: twilio.accountSid, to: PHONE, from: twilio.from });
    expect(sms[0]!.body).toMatch(/^\d{6} is your Tessera verification code\. It expires in 10 minutes\./);
    await t.mail.waitFor(acct.email, 'recoveryPhoneAdded', 0);
    expect(await t.client.recoveryPhone({ sessionToken: acct.sessionToken })).toEqual({ exists: true, phoneNumber: '+1••••••0123', nationalFormat: '(•••) •••-0123' });
    expect(await t.client.recoveryPhoneAvailable(acct.sessionToken)).toEqual({ available: false });
    // The number is stored; the code is not (only its HMAC, and it is spent).
    expect(await t.storage.db.selectFrom('recovery_phone_codes').selectAll().where('uid', '=', acct.uid).execute()).toEqual([]);

    // Sign in: two-step, then the phone instead of the app.
    const login = await t.accounts.signIn(acct.email, acct.password);
    expect(login).toMatchObject({ verificationMethod: 'totp-2fa', verified: false });
    // A session that is waiting sees the phone masked, without the national format.
    expect(await t.client.recoveryPhone({ sessionToken: login.sessionToken })).toEqual({ exists: true, phoneNumber: '+1••••••0123' });
    const before = twilio.messages.length;
    await t.client.recoveryPhoneSigninSendCode(login.sessionToken, {});
    await expectError(t.client.recoveryPhoneSigninConfirm(login.sessionToken, { code: '000000' === twilio.codeFor(PHONE, before) ? '111111' : '000000' }), 'INVALID_EXPIRED_OTP_CODE');
    const mailSince = t.mail.messages.length;
    expect(await t.client.recoveryPhoneSigninConfirm(login.sessionToken, { code: twilio.codeFor(PHONE, before) })).toEqual({});
    expect((await t.client.sessionStatus(login.sessionToken)).details).toMatchObject({ sessionVerified: true, sessionVerificationMethod: 'sms-2fa', sessionVerificationMeetsMinimumAAL: true });
    await t.mail.waitFor(acct.email, 'recoveryPhoneUsed', mailSince);
    // The code was single use.
    const again = await t.accounts.signIn(acct.email, acct.password);
    await expectError(t.client.recoveryPhoneSigninConfirm(again.sessionToken, { code: twilio.codeFor(PHONE, before) }), 'INVALID_EXPIRED_OTP_CODE');

    // Change it with an MFA token scoped mfa:2fa.
    const token = await mfaToken(t, acct, '2fa');
    const changeSince = twilio.messages.length;
    expect(await t.client.mfaRecoveryPhoneCreate(token, { phoneNumber: OTHER_PHONE })).toMatchObject({ success: true });
    // Confirm (add) refuses: the account has a phone; change is the way.
    await expectError(t.client.mfaRecoveryPhoneConfirm(token, { code: twilio.codeFor(OTHER_PHONE, changeSince) }), 'RECOVERY_PHONE_NUMBER_ALREADY_EXISTS');
    expect(await t.client.mfaRecoveryPhoneChange(token, { code: twilio.codeFor(OTHER_PHONE, changeSince) })).toEqual({ success: true });
    await t.mail.waitFor(acct.email, 'recoveryPhoneChanged', 0);
    expect(await t.client.recoveryPhone({ sessionToken: acct.sessionToken })).toMatchObject({ exists: true, phoneNumber: '+1••••••0123', nationalFormat: '(•••) •••-0123' });
    const row = await t.storage.db.selectFrom('recovery_phones').selectAll().where('uid', '=', acct.uid).executeTakeFirstOrThrow();
    expect(row.phone_number).toBe(OTHER_PHONE);
    // Adding the same number again is 214.
    await expectError(t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: OTHER_PHONE }), 'RECOVERY_PHONE_NUMBER_ALREADY_EXISTS');

    await t.client.mfaRecoveryPhoneDelete(token);
    await t.mail.waitFor(acct.email, 'recoveryPhoneRemoved', 0);
    expect(await t.client.recoveryPhone({ sessionToken: acct.sessionToken })).toEqual({ exists: false });
    await expectError(t.client.recoveryPhoneDelete(acct.sessionToken), 'RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST');
    await expectError(t.client.recoveryPhoneSigninSendCode(acct.sessionToken, {}), 'RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST');
  });

  it('refuses bad numbers: 129 for the grammar or an impossible number, 130 for a region not allowed', { timeout: 120_000 }, async () => {
    // Customs counts every create (6 an hour per client and account): two accounts share the cases.
    const acct = await phoneReadyAccount(t);
    const other = await phoneReadyAccount(t);
    for (const [i, phoneNumber] of ['4155550123', '+04155550123', '+1415555012345678', '+1 415 555 0123', '+', 'phone', '+15550100000'].entries()) {
      await expectError(t.client.recoveryPhoneCreate((i % 2 ? other : acct).sessionToken, { phoneNumber }), 'INVALID_PHONE_NUMBER');
    }
    const err = await expectError(t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: '+33612345678' }), 'INVALID_REGION');
    expect(err.body).toMatchObject({ region: 'FR' });
    expect(twilio.messages.filter((m) => m.to === '+33612345678')).toEqual([]);
  });

  it('needs two-step with backup codes; two-step off removes the phone', { timeout: 120_000 }, async () => {
    const plain = await verifiedAccount(t);
    await expectError(t.client.recoveryPhoneCreate(plain.sessionToken, { phoneNumber: PHONE }), 'RECOVERY_PHONE_BACKUP_CODES_REQUIRED');
    const noCodes = await twoStepAccount(t);
    await expectError(t.client.recoveryPhoneCreate(noCodes.sessionToken, { phoneNumber: PHONE }), 'RECOVERY_PHONE_BACKUP_CODES_REQUIRED');

    const acct = await phoneReadyAccount(t);
    await addPhone(acct);
    await t.client.totpDestroy(acct.sessionToken);
    expect(await t.storage.db.selectFrom('recovery_phones').selectAll().where('uid', '=', acct.uid).execute()).toEqual([]);
  });

  it('wrong guesses are bounded per code and a resend does not reset them', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    const since = twilio.messages.length;
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    const first = twilio.codeFor(PHONE, since);
    const wrong = (c: string) => String((Number(c) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 3; i++) await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code: wrong(first) }), 'INVALID_EXPIRED_OTP_CODE');
    // A resend: a new code, but the 3 wrong guesses stay counted.
    const resent = twilio.messages.length;
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    const second = twilio.codeFor(PHONE, resent);
    // The first code no longer works (and counts as wrong).
    if (second !== first) await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code: first }), 'INVALID_EXPIRED_OTP_CODE');
    else await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code: wrong(first) }), 'INVALID_EXPIRED_OTP_CODE');
    await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code: wrong(second) }), 'INVALID_EXPIRED_OTP_CODE');
    // Five wrong guesses: even the right code is refused now, and resending is throttled.
    await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code: second }), 'INVALID_EXPIRED_OTP_CODE');
    const throttled = await expectError(t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE }), 'THROTTLED');
    expect(Number(throttled.body.retryAfter)).toBeGreaterThan(0);

    // Once the last code has expired unused, a new one works.
    t.clock!.advance(11 * 60_000);
    const later = twilio.messages.length;
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    expect(await t.client.recoveryPhoneConfirm(acct.sessionToken, { code: twilio.codeFor(PHONE, later) })).toEqual({ success: true });
  });

  it('guesses racing in parallel cannot take more than the budget', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    const since = twilio.messages.length;
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    const code = twilio.codeFor(PHONE, since);
    const wrong = Array.from({ length: 8 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const results = await Promise.allSettled(wrong.map((c) => t.client.recoveryPhoneConfirm(acct.sessionToken, { code: c })));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    const row = await t.storage.db.selectFrom('recovery_phone_codes').selectAll().where('uid', '=', acct.uid).executeTakeFirstOrThrow();
    expect(Number(row.failures)).toBe(5);
    await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code }), 'INVALID_EXPIRED_OTP_CODE');
  });

  it('a code expires after 10 minutes', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    const since = twilio.messages.length;
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    t.clock!.advance(10 * 60_000 + 1);
    await expectError(t.client.recoveryPhoneConfirm(acct.sessionToken, { code: twilio.codeFor(PHONE, since) }), 'INVALID_EXPIRED_OTP_CODE');
  });

  it('a number serves at most five accounts', { timeout: 120_000 }, async () => {
    const shared = '+12025550143';
    for (let i = 0; i < 5; i++) await addPhone(await phoneReadyAccount(t), shared);
    const sixth = await phoneReadyAccount(t);
    await expectError(t.client.recoveryPhoneCreate(sixth.sessionToken, { phoneNumber: shared }), 'RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED');
  });

  it('stands in for the second factor of a password reset', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    await addPhone(acct);
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email: acct.email });
    const otp = (await t.mail.waitFor(acct.email, 'passwordForgotOtp', since)).code!;
    const forgot = await t.client.passwordForgotVerifyOtp({ email: acct.email, code: otp });
    expect(await t.client.recoveryPhone({ passwordForgotToken: forgot.token })).toEqual({ exists: true, phoneNumber: '+1••••••0123' });
    const smsSince = twilio.messages.length;
    await t.client.recoveryPhoneResetPasswordSendCode(forgot.token, {});
    await expectError(t.client.recoveryPhoneResetPasswordConfirm(forgot.token, { code: '12345678' }), 'INVALID_EXPIRED_OTP_CODE');
    expect(await t.client.recoveryPhoneResetPasswordConfirm(forgot.token, { code: twilio.codeFor(PHONE, smsSince) })).toEqual({});
    await t.mail.waitFor(acct.email, 'recoveryPhoneUsed', since);
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(forgot.token, { code: forgot.code });
    expect(accountResetToken).toMatch(/^[0-9a-f]{64}$|^fx/);
  });

  it('answers 500/203 when Twilio refuses the message', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    twilio.failWith = { status: 400, code: 21211, message: 'The \'To\' number is not a valid phone number.' };
    try {
      await expectError(t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE }), 'BACKEND_SERVICE_FAILURE');
    } finally {
      twilio.failWith = null;
    }
  });

  it('every /mfa/recovery_phone route refuses a missing, expired or wrongly scoped token', { timeout: 120_000 }, async () => {
    await expectMfaGuarded(t, { method: 'POST', path: '/v1/mfa/recovery_phone/create', body: { phoneNumber: PHONE } }, '2fa');
    await expectMfaGuarded(t, { method: 'POST', path: '/v1/mfa/recovery_phone/confirm', body: { code: '123456' } }, '2fa');
    await expectMfaGuarded(t, { method: 'POST', path: '/v1/mfa/recovery_phone/change', body: { code: '123456' } }, '2fa');
    await expectMfaGuarded(t, { method: 'DELETE', path: '/v1/mfa/recovery_phone' }, '2fa');
  });

  it('the session routes need a confirmed session', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    nextStep(t);
    const login = await t.accounts.signIn(acct.email, acct.password);
    await expectError(t.client.recoveryPhoneCreate(login.sessionToken, { phoneNumber: PHONE }), 'SESSION_UNVERIFIED');
    await expectError(t.client.recoveryPhoneDelete(login.sessionToken), 'SESSION_UNVERIFIED');
    expect(await t.client.sessionVerifyTotp(login.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
  });
});

describe('recovery phone through the outbox (sqlite)', () => {
  let t: TestServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-sms-'));
  beforeAll(async () => {
    t = await createTestServer({ env: { DATA_DIR: dataDir } });
  });
  afterAll(async () => t?.close());

  it('writes each SMS to $DATA_DIR/sms-outbox, and the phone works from there', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    await t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE });
    const dir = join(dataDir, 'sms-outbox');
    const files = readdirSync(dir).filter((f) => f.endsWith('-recoveryPhoneCode.json'));
    expect(files).toHaveLength(1);
    const sms = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as { to: string; body: string; kind: string };
    expect(sms).toMatchObject({ to: PHONE, kind: 'recoveryPhoneCode' });
    const code = /\b(\d{6})\b/.exec(sms.body)![1]!;
    expect(await t.client.recoveryPhoneConfirm(acct.sessionToken, { code })).toEqual({ success: true });
  });
});

describe('recovery phone without SMS (production without Twilio)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ smsSender: null });
  });
  afterAll(async () => t?.close());

  it('answers 503/202 rather than pretending', { timeout: 120_000 }, async () => {
    const acct = await phoneReadyAccount(t);
    expect(await t.client.recoveryPhoneAvailable(acct.sessionToken)).toEqual({ available: false });
    await expectError(t.client.recoveryPhoneCreate(acct.sessionToken, { phoneNumber: PHONE }), 'FEATURE_NOT_ENABLED');
  });
});
