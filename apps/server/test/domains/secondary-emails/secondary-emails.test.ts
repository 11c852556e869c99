import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stretchV1 } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

// Secondary (recovery) addresses through the SDK, with codes read from the SMTP capture. Time is
// moved by hand: an unconfirmed address holds its claim for SECONDARY_EMAIL_PENDING_SECONDS.
const PENDING_SECONDS = 600;

describe.each(httpDialects())('secondary emails (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true, env: { SECONDARY_EMAIL_MAX_FAILURES: '4', SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
  });
  afterAll(async () => t?.close());

  /** Adds `address` to the account and returns the code mailed to it. */
  async function add(sessionToken: string, address: string): Promise<string> {
    const since = t.mail.messages.length;
    expect(await t.client.recoveryEmailCreate(sessionToken, { email: address })).toEqual({});
    return (await t.mail.waitFor(address, 'verifySecondaryCode', since)).code!;
  }

  /** A verified account with a confirmed secondary address. */
  async function withSecondary() {
    const acct = await verifiedAccount(t);
    const secondary = newEmail('second');
    const code = await add(acct.sessionToken, secondary);
    await t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: secondary, code });
    return { ...acct, secondary };
  }

  it('adds an address unconfirmed, mails the code to that address only, and confirms it', async () => {
    const acct = await verifiedAccount(t);
    const typed = `Second.${newEmail()}`;
    const since = t.mail.messages.length;
    await t.client.recoveryEmailCreate(acct.sessionToken, { email: typed });
    const codeMail = await t.mail.waitFor(typed, 'verifySecondaryCode', since);
    expect(codeMail.code).toMatch(/^[0-9]{6}$/);
    await t.mail.waitFor(acct.email, 'secondaryEmailAdded', since);
    // The unproven address receives its code and nothing else.
    expect(t.mail.messages.slice(since).filter((m) => m.to === typed.toLowerCase()).map((m) => m.template)).toEqual(['verifySecondaryCode']);
    expect(await t.client.recoveryEmails(acct.sessionToken)).toEqual([
      { email: acct.email, verified: true, isPrimary: true },
      { email: typed, verified: false, isPrimary: false },
    ]);

    const before = t.mail.messages.length;
    // Compared without case, as every address is.
    await t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: typed.toLowerCase(), code: codeMail.code! });
    await t.mail.waitFor(acct.email, 'secondaryEmailVerified', before);
    expect(await t.client.recoveryEmails(acct.sessionToken)).toEqual([
      { email: acct.email, verified: true, isPrimary: true },
      { email: typed, verified: true, isPrimary: false },
    ]);
    // The code was single-use: the address is confirmed, a replay changes nothing.
    expect(await t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: typed, code: codeMail.code! })).toEqual({});
    const names = (await t.client.securityEvents(acct.sessionToken)).map((e: { name: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining(['account.secondary_email_added', 'account.secondary_email_verified']));
  });

  it('needs a confirmed session for changes (138) but lists with any session', async () => {
    const email = newEmail();
    const signedUp = await t.accounts.signUp(email, 'correct horse battery staple', { verificationMethod: 'email-otp' });
    expect(await t.client.recoveryEmails(signedUp.sessionToken)).toEqual([{ email, verified: false, isPrimary: true }]);
    await expectError(t.client.recoveryEmailCreate(signedUp.sessionToken, { email: newEmail() }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryEmailSetPrimary(signedUp.sessionToken, { email }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryEmailDestroy(signedUp.sessionToken, { email }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryEmailSecondaryResendCode(signedUp.sessionToken, { email }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(signedUp.sessionToken, { email, code: '123456' }), 'SESSION_UNVERIFIED', 400);
  });

  it('lists the secondary addresses only to a session confirmed at the account\'s AAL; a sign-in that proved the password gets the primary (issue 22)', async () => {
    const acct = await withSecondary();
    const everything = [{ email: acct.email, verified: true, isPrimary: true }, { email: acct.secondary, verified: true, isPrimary: false }];
    expect(await t.client.recoveryEmails(acct.sessionToken)).toEqual(everything);
    // Confirmation is always asked here (SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS 0).
    const waiting = await t.accounts.signIn(acct.email, acct.password);
    expect(waiting.verified).toBe(false);
    expect(await t.client.recoveryEmails(waiting.sessionToken)).toEqual([everything[0]]);
    // GET /account too: the confirmed session sees both, the waiting sign-in the primary.
    expect((await t.client.account(acct.sessionToken)).emails).toEqual(everything);
    expect((await t.client.account(waiting.sessionToken)).emails).toEqual([everything[0]]);
  });

  it('refuses addresses that are taken: 139, 136, 140, 144', async () => {
    const acct = await withSecondary();
    const other = await verifiedAccount(t);
    const since = t.mail.messages.length;
    await expectError(t.client.recoveryEmailCreate(acct.sessionToken, { email: acct.email.toUpperCase() }), 'USER_PRIMARY_EMAIL_EXISTS', 400);
    await expectError(t.client.recoveryEmailCreate(acct.sessionToken, { email: acct.secondary }), 'EMAIL_EXISTS', 400);
    await expectError(t.client.recoveryEmailCreate(other.sessionToken, { email: acct.email }), 'VERIFIED_PRIMARY_EMAIL_EXISTS', 400);
    await expectError(t.client.recoveryEmailCreate(other.sessionToken, { email: acct.secondary }), 'VERIFIED_SECONDARY_EMAIL_EXISTS', 400);
    // Nothing was mailed to any of the refused addresses, and nothing changed.
    expect(t.mail.messages.slice(since).filter((m) => m.template === 'verifySecondaryCode')).toEqual([]);
    expect((await t.client.recoveryEmails(other.sessionToken)).length).toBe(1);
  });

  it('refuses another account\'s unconfirmed primary (141) and its fresh unconfirmed claim (136)', async () => {
    const acct = await verifiedAccount(t);
    const other = await verifiedAccount(t);
    const since = t.mail.messages.length;
    const unconfirmed = newEmail();
    await t.accounts.signUp(unconfirmed, 'correct horse battery staple', { verificationMethod: 'email-otp' });
    await expectError(t.client.recoveryEmailCreate(other.sessionToken, { email: unconfirmed }), 'UNVERIFIED_PRIMARY_EMAIL_EXISTS', 400);
    const pending = newEmail('pending');
    await add(acct.sessionToken, pending);
    await expectError(t.client.recoveryEmailCreate(other.sessionToken, { email: pending }), 'EMAIL_EXISTS', 400);
    // Nothing was mailed to any of the refused addresses, and nothing changed.
    expect(t.mail.messages.slice(since).filter((m) => m.template === 'verifySecondaryCode').map((m) => m.to)).toEqual([pending.toLowerCase()]);
    expect((await t.client.recoveryEmails(other.sessionToken)).length).toBe(1);
  });

  it('lets another account take an unconfirmed address once its claim expired; the stale claim is removed', async () => {
    const first = await verifiedAccount(t);
    const second = await verifiedAccount(t);
    const address = newEmail('claimed');
    const staleCode = await add(first.sessionToken, address);
    t.clock!.advance(PENDING_SECONDS * 1000 - 1000);
    await expectError(t.client.recoveryEmailCreate(second.sessionToken, { email: address }), 'EMAIL_EXISTS', 400);
    t.clock!.advance(2000);
    const code = await add(second.sessionToken, address);
    expect((await t.client.recoveryEmails(first.sessionToken)).map((e) => e.email)).toEqual([first.email]);
    // The first account's code proves nothing any more.
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(first.sessionToken, { email: address, code: staleCode }), 'SECONDARY_EMAIL_UNKNOWN', 400);
    await t.client.recoveryEmailSecondaryVerifyCode(second.sessionToken, { email: address, code });
    expect((await t.client.recoveryEmails(second.sessionToken))[1]).toEqual({ email: address, verified: true, isPrimary: false });
  });

  it('two accounts adding one address at once: exactly one gets it', async () => {
    const a = await verifiedAccount(t);
    const b = await verifiedAccount(t);
    const address = newEmail('race');
    const since = t.mail.messages.length;
    const results = await Promise.allSettled([
      t.client.recoveryEmailCreate(a.sessionToken, { email: address }),
      t.client.recoveryEmailCreate(b.sessionToken, { email: address }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    await expectError(Promise.reject(failed.reason), 'EMAIL_EXISTS', 400);
    const holders = [(await t.client.recoveryEmails(a.sessionToken)).length, (await t.client.recoveryEmails(b.sessionToken)).length];
    expect(holders.sort()).toEqual([1, 2]);
    await t.mail.waitFor(address, 'verifySecondaryCode', since);
    expect(t.mail.messages.slice(since).filter((m) => m.to === address.toLowerCase())).toHaveLength(1);
  });

  it('verify_code: digits only; 3 tries per code; wrong codes count across resends; 153 when expired; 143 for no such address', async () => {
    const acct = await verifiedAccount(t);
    const address = newEmail('guess');
    const code = await add(acct.sessionToken, address);
    const wrong = code === '000000' ? '111111' : '000000';
    for (const notDigits of ['12ab56', ' 123456', '12345', '１２３４５６']) {
      await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code: notDigits }), 'INVALID_PARAMETER', 400);
    }
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: newEmail(), code }), 'SECONDARY_EMAIL_UNKNOWN', 400);
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: acct.email, code }), 'SECONDARY_EMAIL_UNKNOWN', 400);
    for (let i = 0; i < 3; i++) await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code: wrong }), 'INVALID_EXPIRED_OTP_CODE', 400);
    // The code's tries are spent: even the right code is refused now.
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code }), 'INVALID_EXPIRED_OTP_CODE', 400);

    // A resend gives new tries, not a new budget: the 4th wrong code (SECONDARY_EMAIL_MAX_FAILURES) removes the address.
    const since = t.mail.messages.length;
    await t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: address });
    const fresh = (await t.mail.waitFor(address, 'verifySecondaryCode', since)).code!;
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code: fresh === '000000' ? '111111' : '000000' }), 'INVALID_EXPIRED_OTP_CODE', 400);
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code: fresh }), 'SECONDARY_EMAIL_UNKNOWN', 400);
    expect((await t.client.recoveryEmails(acct.sessionToken)).map((e) => e.email)).toEqual([acct.email]);

    // Expiry: a code older than SECONDARY_EMAIL_PENDING_SECONDS is refused with 153; a resend works.
    const later = newEmail('late');
    const old = await add(acct.sessionToken, later);
    t.clock!.advance(PENDING_SECONDS * 1000 + 1000);
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: later, code: old }), 'EXPIRED_TOKEN_VERIFICATION_CODE', 400);
    const s2 = t.mail.messages.length;
    await t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: later });
    const renewed = (await t.mail.waitFor(later, 'verifySecondaryCode', s2)).code!;
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: later, code: old === renewed ? String((Number(old) + 1) % 1e6).padStart(6, '0') : old }), 'INVALID_EXPIRED_OTP_CODE', 400);
    await t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: later, code: renewed });
  });

  it('resend_code: 150 for an address that is not one of the account\'s secondary addresses; nothing for a confirmed one', async () => {
    const acct = await withSecondary();
    const other = await withSecondary();
    const since = t.mail.messages.length;
    await expectError(t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: other.secondary }), 'RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', 400);
    await expectError(t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: other.email }), 'RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', 400);
    await expectError(t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: newEmail() }), 'RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', 400);
    await expectError(t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: acct.email }), 'RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', 400);
    expect(await t.client.recoveryEmailSecondaryResendCode(acct.sessionToken, { email: acct.secondary })).toEqual({});
    expect(t.mail.messages.length).toBe(since);
  });

  it('destroy: removes a secondary address with a notice; the primary cannot go (137); 143 for none of the account\'s', async () => {
    const acct = await withSecondary();
    const other = await withSecondary();
    await expectError(t.client.recoveryEmailDestroy(acct.sessionToken, { email: acct.email }), 'EMAIL_DELETE_PRIMARY', 400);
    await expectError(t.client.recoveryEmailDestroy(acct.sessionToken, { email: other.secondary }), 'SECONDARY_EMAIL_UNKNOWN', 400);
    expect((await t.client.recoveryEmails(other.sessionToken))).toHaveLength(2);
    const since = t.mail.messages.length;
    await t.client.recoveryEmailDestroy(acct.sessionToken, { email: acct.secondary.toUpperCase() });
    await t.mail.waitFor(acct.email, 'secondaryEmailRemoved', since);
    expect((await t.client.recoveryEmails(acct.sessionToken)).map((e) => e.email)).toEqual([acct.email]);
    // The address is free again.
    await add(other.sessionToken, acct.secondary);
  });

  it('set_primary: only a confirmed address of the account (147, 148)', async () => {
    const acct = await verifiedAccount(t);
    const other = await withSecondary();
    const pending = newEmail('pending');
    await add(acct.sessionToken, pending);
    await expectError(t.client.recoveryEmailSetPrimary(acct.sessionToken, { email: pending }), 'CHANGE_EMAIL_TO_UNVERIFIED_EMAIL', 400);
    await expectError(t.client.recoveryEmailSetPrimary(acct.sessionToken, { email: other.secondary }), 'CHANGE_EMAIL_TO_UNOWNED_EMAIL', 400);
    await expectError(t.client.recoveryEmailSetPrimary(acct.sessionToken, { email: newEmail() }), 'CHANGE_EMAIL_TO_UNOWNED_EMAIL', 400);
    expect((await t.client.recoveryEmails(acct.sessionToken))[0]).toEqual({ email: acct.email, verified: true, isPrimary: true });
  });

  it('set_primary: sign-in, mail and reset follow the new primary; the old one becomes a secondary address', async () => {
    const acct = await withSecondary();
    const pending = newEmail('pending');
    await add(acct.sessionToken, pending);

    // A reset code mailed to the old primary must not outlive the change.
    await t.client.passwordForgotSendOtp({ email: acct.email });
    const otp = (await t.mail.waitFor(acct.email, 'passwordForgotOtp')).code!;

    const since = t.mail.messages.length;
    await t.client.recoveryEmailSetPrimary(acct.sessionToken, { email: acct.secondary });
    await t.mail.waitFor(acct.email, 'primaryEmailChanged', since);
    await t.mail.waitFor(acct.secondary, 'primaryEmailChanged', since);
    expect(await t.client.recoveryEmails(acct.sessionToken)).toEqual([
      { email: acct.secondary, verified: true, isPrimary: true },
      { email: acct.email, verified: true, isPrimary: false },
      { email: pending, verified: false, isPrimary: false },
    ]);
    expect((await t.client.recoveryEmailStatus(acct.sessionToken)).email).toBe(acct.secondary);
    expect((await t.client.account(acct.sessionToken)).email).toBe(acct.secondary);

    await expectError(t.client.passwordForgotVerifyOtp({ email: acct.secondary, code: otp }), 'INVALID_VERIFICATION_CODE', 400);
    await expectError(t.client.passwordForgotSendOtp({ email: acct.email }), 'RESET_PASSWORD_WITH_SECONDARY_EMAIL', 400);

    // Sign-in with the new primary works, with the old one it is refused (142); mail goes to the new one.
    await expectError(t.accounts.signIn(acct.email, acct.password), 'LOGIN_WITH_SECONDARY_EMAIL', 400);
    const s2 = t.mail.messages.length;
    const signedIn = await t.accounts.signIn(acct.secondary, acct.password, { verificationMethod: 'email-otp' });
    expect(signedIn.uid).toBe(acct.uid);
    const confirm = await t.mail.waitFor(acct.secondary, 'verifyLoginCode', s2);
    await t.client.sessionVerifyCode(signedIn.sessionToken, { code: confirm.code! });
    expect(t.mail.messages.slice(s2).some((m) => m.to === acct.email.toLowerCase())).toBe(false);

    // The old primary, now a confirmed secondary address, can become the primary again.
    await t.client.recoveryEmailSetPrimary(acct.sessionToken, { email: acct.email });
    expect((await t.accounts.signIn(acct.email, acct.password)).uid).toBe(acct.uid);
    await expectError(t.accounts.signIn(acct.secondary, acct.password), 'LOGIN_WITH_SECONDARY_EMAIL', 400);
  });

  it('a version-1 password after a change of primary: 120 names the address it was set with; the SDK signs in with the new primary', async () => {
    const email = newEmail('v1');
    const password = 'legacy password';
    const v1 = await stretchV1(email, password);
    const since = t.mail.messages.length;
    const created = await t.client.accountCreate({ email, authPW: v1.authPW, verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(created.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    const secondary = newEmail('v1second');
    const code = await add(created.sessionToken, secondary);
    await t.client.recoveryEmailSecondaryVerifyCode(created.sessionToken, { email: secondary, code });
    await t.client.recoveryEmailSetPrimary(created.sessionToken, { email: secondary });

    const stretchedWithNew = await stretchV1(secondary, password);
    const err = await expectError(t.client.accountLogin({ email: secondary, authPW: stretchedWithNew.authPW }), 'INCORRECT_EMAIL_CASE', 400);
    expect(err.body.email).toBe(email);
    // The salt address alone no longer signs in (it is a secondary address)…
    await expectError(t.client.accountLogin({ email, authPW: v1.authPW }), 'LOGIN_WITH_SECONDARY_EMAIL', 400);
    // …but with the primary as originalLoginEmail it does; a salt that is not the account's is refused.
    expect((await t.client.accountLogin({ email, authPW: v1.authPW, originalLoginEmail: secondary })).uid).toBe(created.uid);
    await expectError(t.client.accountLogin({ email: newEmail(), authPW: v1.authPW, originalLoginEmail: secondary }), 'INCORRECT_PASSWORD', 400);
    expect((await t.accounts.signIn(secondary, password)).uid).toBe(created.uid);
    // Proving the password again on a session takes the same pair.
    expect((await t.client.sessionReauth(created.sessionToken, { email, authPW: v1.authPW, originalLoginEmail: secondary })).uid).toBe(created.uid);

    // The original address can even leave the account: the password still opens it.
    await t.client.recoveryEmailDestroy(created.sessionToken, { email });
    expect((await t.accounts.signIn(secondary, password)).uid).toBe(created.uid);
  });

  it('sign-up: someone\'s confirmed secondary address is refused (144), a fresh claim too (136), an expired claim is taken over', async () => {
    const acct = await withSecondary();
    await expectError(t.accounts.signUp(acct.secondary, 'correct horse battery staple'), 'VERIFIED_SECONDARY_EMAIL_EXISTS', 400);
    const pending = newEmail('claim');
    await add(acct.sessionToken, pending);
    await expectError(t.accounts.signUp(pending, 'correct horse battery staple'), 'EMAIL_EXISTS', 400);
    t.clock!.advance(PENDING_SECONDS * 1000 + 1000);
    const signedUp = await t.accounts.signUp(pending, 'correct horse battery staple');
    expect(signedUp.uid).not.toBe(acct.uid);
    expect((await t.client.recoveryEmails(acct.sessionToken)).map((e) => e.email)).toEqual([acct.email, acct.secondary]);
    // Sign-in and reset by a secondary address are refused.
    await expectError(t.accounts.signIn(acct.secondary, acct.password), 'LOGIN_WITH_SECONDARY_EMAIL', 400);
    await expectError(t.client.passwordForgotSendOtp({ email: acct.secondary }), 'RESET_PASSWORD_WITH_SECONDARY_EMAIL', 400);
  });

  it('deleting the account frees its secondary addresses', async () => {
    const acct = await withSecondary();
    const creds = await t.accounts.credentialsFor(acct.email, acct.password);
    await t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW: creds.authPW });
    const other = await verifiedAccount(t);
    await add(other.sessionToken, acct.secondary);
  });
});

describe('secondary emails: rate limits', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => t?.close());

  it('limits adds per account and client (createEmail: 5 per 15 minutes)', async () => {
    const acct = await verifiedAccount(t);
    for (let i = 0; i < 5; i++) await t.client.recoveryEmailCreate(acct.sessionToken, { email: newEmail('many') });
    await expectError(t.client.recoveryEmailCreate(acct.sessionToken, { email: newEmail('many') }), 'THROTTLED', 429);
  });

  it('limits code checks (recoveryEmailSecondaryVerifyCode: 10 per 10 minutes)', async () => {
    const acct = await verifiedAccount(t);
    const address = newEmail('limited');
    await t.client.recoveryEmailCreate(acct.sessionToken, { email: address });
    for (let i = 0; i < 10; i++) {
      await t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code: '000000' }).catch(() => undefined);
    }
    await expectError(t.client.recoveryEmailSecondaryVerifyCode(acct.sessionToken, { email: address, code: '000000' }), 'THROTTLED', 429);
  });
});
