import { describe, expect, it } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { serverBeside, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, hex } from '../../helpers.js';
import { PushService } from '../../push-service.js';
import { appFor, codeAt, nextStep, twoStepAccount } from '../two-step/two-step-helpers.js';

// Issue 22: what an unconfirmed or email-confirmed session can do, through HTTP.
// - Hole 1: a sign-in waiting for the second factor is never sent an emailed code or link for it,
//   and no email (code, link, the code another device shows) confirms it — also a sign-in that
//   was already waiting for email when two-step was turned on.
// - Hole 4: only a session confirmed at the account's AAL signs out other sessions.
// - POST /session/duplicate: each session keeps its own confirmation.

const CONFIRMATION_MAILS = ['verify', 'verifyLogin', 'verifyShortCode', 'verifyLoginCode'];

const tokenId = (sessionToken: string) => deriveTokenKeys('sessionToken', sessionToken).tokenId;

describe.each(httpDialects())('sessions and the second factor (%s)', (dialect) => {
  let t: TestServer;
  const push = new PushService();
  // Every sign-in must be confirmed (no grace period for new accounts); TOTP codes follow the manual clock.
  serverBeside([push], { dialect, manualClock: true, env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } }, (server) => (t = server));

  /** Confirmation mail (codes and links) sent to `email` since message `since`. */
  const confirmationMail = (email: string, since: number) =>
    t.mail.messages.slice(since).filter((m) => m.to === email.toLowerCase() && CONFIRMATION_MAILS.includes(m.template)).map((m) => m.template);

  const verifyPage = (form: Record<string, string>) =>
    fetch(`${t.url}/verify_email`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });

  /** Turns two-step on from `sessionToken` (a confirmed session, which ends at AAL2); the app. */
  async function enableTwoStep(sessionToken: string) {
    const { secret } = await t.client.totpCreate(sessionToken, {});
    const app = appFor(secret);
    expect(await t.client.totpSetupVerify(sessionToken, { code: codeAt(t, app) })).toEqual({ success: true });
    await t.client.totpSetupComplete(sessionToken, {});
    return app;
  }

  it('hole 1: a sign-in waiting for the second factor is sent no code or link, and no email confirms it', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password, { keys: true, verificationMethod: 'email-otp' });
    expect(login).toMatchObject({ verified: false, verificationMethod: 'totp-2fa' });

    // The attacker has the password and the mailbox, not the app: every email way is closed, and says what to use.
    const resend = await expectError(t.client.sessionResendCode(login.sessionToken, {}), 'INSUFFICIENT_AAL');
    expect(resend.message).toMatch(/second factor|two-step/i);
    await expectError(t.client.recoveryEmailResendCode(login.sessionToken, {}), 'INSUFFICIENT_AAL');
    await expectError(t.client.recoveryEmailResendCode(login.sessionToken, { email: acct.email, type: 'upgradeSession' }), 'INSUFFICIENT_AAL');
    await expectError(t.client.sessionVerifyCode(login.sessionToken, { code: '123456' }), 'INSUFFICIENT_AAL');
    await expectError(t.client.sessionVerifyVerifyPush(login.sessionToken, { code: '123456' }), 'INSUFFICIENT_AAL');
    expect(confirmationMail(acct.email, since)).toEqual([]);
    expect((await t.client.sessionStatus(login.sessionToken)).details).toMatchObject({ sessionVerified: false, sessionVerificationMethod: null });
    await expectError(t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey), 'ACCOUNT_UNVERIFIED');

    // The second factor confirms it, at AAL2.
    nextStep(t);
    expect(await t.client.sessionVerifyTotp(login.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(login.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true });
    // Confirmed: nothing to resend, as for any confirmed session.
    await t.client.sessionResendCode(login.sessionToken, {});
    expect(confirmationMail(acct.email, since)).toEqual([]);
  });

  it('hole 1: sign-ins already waiting for email when two-step is turned on need the second factor from then on', { timeout: 120_000 }, async () => {
    const acct = await verifiedAccount(t);
    // A device on the confirmed session can show a pushed confirmation code.
    const sub = push.subscribe();
    await t.client.accountDevice(acct.sessionToken, { name: 'A', pushCallback: sub.endpoint, ...sub.keys });

    // Three sign-ins waiting for email, each with its code or link already in hand.
    let since = t.mail.messages.length;
    const byCode = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    const code = (await t.mail.waitFor(acct.email, 'verifyLoginCode', since)).code!;
    since = t.mail.messages.length;
    const byLink = await t.accounts.signIn(acct.email, acct.password);
    const linkCode = new URL((await t.mail.waitFor(acct.email, 'verifyLogin', since)).link!).searchParams.get('code')!;
    const byPush = await t.accounts.signIn(acct.email, acct.password);
    expect(await t.client.sessionVerifySendPush(byPush.sessionToken)).toEqual({ sent: 1 });
    await t.app.push.idle();
    const pushed = (push.pushesFor(sub).at(-1) as { data: { code: string } }).data.code;

    const app = await enableTwoStep(acct.sessionToken);

    await expectError(t.client.sessionVerifyCode(byCode.sessionToken, { code }), 'INSUFFICIENT_AAL');
    await expectError(t.client.recoveryEmailVerifyCode({ uid: acct.uid, code: linkCode }), 'INSUFFICIENT_AAL');
    // The page the link lands on offers nothing to confirm, and its form confirms nothing.
    const page = await fetch(`${t.url}/verify_email?uid=${acct.uid}&code=${linkCode}`);
    expect(await page.text()).not.toContain('Confirm sign-in');
    const posted = await verifyPage({ uid: acct.uid, code: linkCode });
    expect(await posted.text()).not.toContain('Sign-in confirmed');
    await expectError(t.client.sessionVerifyVerifyPush(byPush.sessionToken, { code: pushed }), 'INSUFFICIENT_AAL');
    await expectError(t.client.sessionVerifySendPush(byPush.sessionToken), 'INSUFFICIENT_AAL');
    for (const s of [byCode, byLink, byPush]) {
      expect((await t.client.sessionStatus(s.sessionToken)).details).toMatchObject({ sessionVerified: false, sessionVerificationMeetsMinimumAAL: false });
    }
    await expectError(t.client.sessionResendCode(byLink.sessionToken, {}), 'INSUFFICIENT_AAL');

    // The app confirms one of them.
    nextStep(t);
    expect(await t.client.sessionVerifyTotp(byCode.sessionToken, { code: codeAt(t, app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(byCode.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true });

    // Two-step turned off again: the account's minimum is AAL1, and email confirms its sign-ins again.
    await t.client.totpDestroy(acct.sessionToken);
    since = t.mail.messages.length;
    await t.client.sessionResendCode(byLink.sessionToken, {});
    const fresh = await t.mail.waitFor(acct.email, 'verifyLoginCode', since);
    await t.client.sessionVerifyCode(byLink.sessionToken, { code: fresh.code! });
    expect((await t.client.sessionStatus(byLink.sessionToken)).details).toMatchObject({ sessionVerified: true, sessionVerificationMethod: 'email-2fa' });
  });

  it('hole 1: the store confirms no session of a two-step account by email, whatever its caller checked', { timeout: 120_000 }, async () => {
    // The backstop for a confirmation racing two-step being turned on: the condition is in the UPDATE.
    const acct = await twoStepAccount(t);
    const waiting = await t.accounts.signIn(acct.email, acct.password);
    const { sessions } = t.app.services;
    const db = t.storage.db;
    const row = (await sessions.listOf(db, acct.uid)).find((s) => s.tokenVerificationId !== null)!;
    expect(await sessions.markVerified(db, row.id, 'email-2fa', t.clock!.now())).toBe(false);
    expect(await sessions.markVerifiedByVerificationId(db, acct.uid, row.tokenVerificationId!, 'email', t.clock!.now())).toBe(0);
    expect((await t.client.sessionStatus(waiting.sessionToken)).state).toBe('unverified');
    // Without two-step the same calls confirm.
    const plain = await verifiedAccount(t);
    await t.accounts.signIn(plain.email, plain.password);
    const other = (await sessions.listOf(db, plain.uid)).find((s) => s.tokenVerificationId !== null)!;
    expect(await sessions.markVerifiedByVerificationId(db, plain.uid, other.tokenVerificationId!, 'email', t.clock!.now())).toBe(1);
  });

  it('hole 1: sign-up confirmation (a new account, no two-step) still works by code and by link', async () => {
    const byCode = newEmail();
    let since = t.mail.messages.length;
    const a = await t.accounts.signUp(byCode, 'sign up by code', { verificationMethod: 'email-otp' });
    await t.mail.waitFor(byCode, 'verifyShortCode', since);
    since = t.mail.messages.length;
    await t.client.sessionResendCode(a.sessionToken, {});
    await t.client.sessionVerifyCode(a.sessionToken, { code: (await t.mail.waitFor(byCode, 'verifyShortCode', since)).code! });
    expect(await t.client.recoveryEmailStatus(a.sessionToken)).toMatchObject({ verified: true, emailVerified: true });

    const byLink = newEmail();
    since = t.mail.messages.length;
    const b = await t.accounts.signUp(byLink, 'sign up by link');
    await t.mail.waitFor(byLink, 'verify', since);
    since = t.mail.messages.length;
    await t.client.recoveryEmailResendCode(b.sessionToken, {});
    const mail = await t.mail.waitFor(byLink, 'verify', since);
    await t.client.recoveryEmailVerifyCode({ uid: b.uid, code: mail.code! });
    expect(await t.client.recoveryEmailStatus(b.sessionToken)).toMatchObject({ verified: true, emailVerified: true });
  });

  it('hole 4: an unconfirmed sign-in cannot sign out other sessions; it can sign out itself', async () => {
    const acct = await verifiedAccount(t);
    const login = await t.accounts.signIn(acct.email, acct.password);
    expect(login.verified).toBe(false);
    const handle = (await t.client.accountAttachedClients(acct.sessionToken)).find((c) => c.isCurrentSession)!.sessionTokenId!;

    await expectError(t.client.sessionDestroy(login.sessionToken, { customSessionToken: tokenId(acct.sessionToken) }), 'SESSION_UNVERIFIED');
    await expectError(t.client.sessionDestroy(login.sessionToken, { customSessionToken: handle }), 'SESSION_UNVERIFIED');
    // Nor does it learn which ids are sessions of the account.
    await expectError(t.client.sessionDestroy(login.sessionToken, { customSessionToken: hex(64) }), 'SESSION_UNVERIFIED');
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');

    // Itself, by name or not: allowed.
    await t.client.sessionDestroy(login.sessionToken, { customSessionToken: tokenId(login.sessionToken) });
    await expectError(t.client.sessionStatus(login.sessionToken), 'INVALID_TOKEN');
    const again = await t.accounts.signIn(acct.email, acct.password);
    await t.client.sessionDestroy(again.sessionToken);
    await expectError(t.client.sessionStatus(again.sessionToken), 'INVALID_TOKEN');

    // A confirmed session signs out another, unconfirmed one.
    const third = await t.accounts.signIn(acct.email, acct.password);
    await t.client.sessionDestroy(acct.sessionToken, { customSessionToken: tokenId(third.sessionToken) });
    await expectError(t.client.sessionStatus(third.sessionToken), 'INVALID_TOKEN');
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
  });

  it('hole 4: on a two-step account, signing out another session needs AAL2', { timeout: 120_000 }, async () => {
    const acct = await verifiedAccount(t);
    // Confirmed by email before two-step was turned on: AAL1 below the account's AAL2 from then on.
    const since = t.mail.messages.length;
    const byEmail = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(byEmail.sessionToken, { code: (await t.mail.waitFor(acct.email, 'verifyLoginCode', since)).code! });
    await enableTwoStep(acct.sessionToken);
    const waiting = await t.accounts.signIn(acct.email, acct.password);
    expect(waiting.verificationMethod).toBe('totp-2fa');

    await expectError(t.client.sessionDestroy(waiting.sessionToken, { customSessionToken: tokenId(acct.sessionToken) }), 'SESSION_UNVERIFIED');
    await expectError(t.client.sessionDestroy(byEmail.sessionToken, { customSessionToken: tokenId(acct.sessionToken) }), 'INSUFFICIENT_AAL');
    await expectError(t.client.sessionDestroy(byEmail.sessionToken, { customSessionToken: tokenId(waiting.sessionToken) }), 'INSUFFICIENT_AAL');
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
    expect((await t.client.sessionStatus(waiting.sessionToken)).state).toBe('unverified');

    // The AAL2 session signs out the others; the AAL1 one may still sign out itself.
    await t.client.sessionDestroy(acct.sessionToken, { customSessionToken: tokenId(waiting.sessionToken) });
    await expectError(t.client.sessionStatus(waiting.sessionToken), 'INVALID_TOKEN');
    await t.client.sessionDestroy(byEmail.sessionToken, { customSessionToken: tokenId(byEmail.sessionToken) });
    await expectError(t.client.sessionStatus(byEmail.sessionToken), 'INVALID_TOKEN');
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
  });

  it('duplicate: an unconfirmed copy waits on its own confirmation; confirming one does not confirm the other', async () => {
    const acct = await verifiedAccount(t);
    let since = t.mail.messages.length;
    const login = await t.accounts.signIn(acct.email, acct.password);
    const original = new URL((await t.mail.waitFor(acct.email, 'verifyLogin', since)).link!).searchParams.get('code')!;
    const copy = await t.client.sessionDuplicate(login.sessionToken, {});
    expect(copy).toMatchObject({ uid: acct.uid, verified: false, sessionVerified: false, emailVerified: true, verificationMethod: 'email', verificationReason: 'login' });

    // The copy's own link carries another code.
    since = t.mail.messages.length;
    await t.client.recoveryEmailResendCode(copy.sessionToken, {});
    const own = new URL((await t.mail.waitFor(acct.email, 'verifyLogin', since)).link!).searchParams.get('code')!;
    expect(own).not.toBe(original);

    // The original's link confirms the original only.
    await t.client.recoveryEmailVerifyCode({ uid: acct.uid, code: original });
    expect((await t.client.sessionStatus(login.sessionToken)).state).toBe('verified');
    expect((await t.client.sessionStatus(copy.sessionToken)).state).toBe('unverified');
    // The copy's link confirms the copy.
    await t.client.recoveryEmailVerifyCode({ uid: acct.uid, code: own });
    expect((await t.client.sessionStatus(copy.sessionToken)).details).toMatchObject({ sessionVerified: true, sessionVerificationMethod: 'email' });

    // By code: the copy's code confirms the copy, not the original.
    const second = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    const secondCopy = await t.client.sessionDuplicate(second.sessionToken, {});
    since = t.mail.messages.length;
    await t.client.sessionResendCode(secondCopy.sessionToken, {});
    await t.client.sessionVerifyCode(secondCopy.sessionToken, { code: (await t.mail.waitFor(acct.email, 'verifyLoginCode', since)).code! });
    expect((await t.client.sessionStatus(secondCopy.sessionToken)).state).toBe('verified');
    expect((await t.client.sessionStatus(second.sessionToken)).state).toBe('unverified');
  });

  it('duplicate: a confirmed session yields a confirmed copy at the same method and AAL; a waiting one a waiting copy', { timeout: 120_000 }, async () => {
    const plain = await verifiedAccount(t);
    const before = (await t.client.sessionStatus(plain.sessionToken)).details;
    const plainCopy = await t.client.sessionDuplicate(plain.sessionToken, {});
    expect(plainCopy).toMatchObject({ verified: true, sessionVerified: true });
    expect((await t.client.sessionStatus(plainCopy.sessionToken)).details).toEqual(before);

    const acct = await twoStepAccount(t);
    const aal2 = await t.client.sessionDuplicate(acct.sessionToken, {});
    expect((await t.client.sessionStatus(aal2.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true });
    expect((await t.client.recoveryCodesGenerate(aal2.sessionToken)).recoveryCodes.length).toBeGreaterThan(0);

    const waiting = await t.accounts.signIn(acct.email, acct.password);
    const waitingCopy = await t.client.sessionDuplicate(waiting.sessionToken, {});
    expect(waitingCopy).toMatchObject({ verified: false, sessionVerified: false });
    await expectError(t.client.sessionResendCode(waitingCopy.sessionToken, {}), 'INSUFFICIENT_AAL');
    nextStep(t);
    expect(await t.client.sessionVerifyTotp(waitingCopy.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(waitingCopy.sessionToken)).details.sessionVerificationMeetsMinimumAAL).toBe(true);
    expect((await t.client.sessionStatus(waiting.sessionToken)).state).toBe('unverified');
  });
});
