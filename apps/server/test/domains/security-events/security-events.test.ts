import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';

const DAY_MS = 86_400_000;

/** Rows of the account left in security_events, read below the API. */
async function storedEvents(t: TestServer, uid: string): Promise<number> {
  const r = await t.storage.db.selectFrom('security_events').select(sql<number>`count(*)`.as('n')).where('uid', '=', uid).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe.each(httpDialects())('security events (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    // Sign-ins of addresses starting with "confirm." always need confirmation by email.
    t = await createTestServer({ dialect, env: { SIGNIN_CONFIRMATION_FORCED_EMAIL_REGEX: '^confirm\\.' } });
  });
  afterAll(async () => t?.close());

  it('lists sign-up, a failed sign-in, a sign-in and a password change, newest first', async () => {
    const acct = await verifiedAccount(t, 'first password');
    await expectError(t.accounts.signIn(acct.email, 'not the password'), 'INCORRECT_PASSWORD');
    await t.accounts.signIn(acct.email, 'first password');
    const changed = await t.accounts.changePassword(acct.sessionToken, acct.email, 'first password', 'second password');

    const events = await t.client.securityEvents(changed.sessionToken!);
    expect(events.map((e) => [e.name, e.verified])).toEqual([
      ['account.password_changed', true],
      ['account.login', true],
      ['account.login.failure', false],
      ['account.email_verified', true],
      ['account.create', false],
    ]);
    for (const [i, e] of events.entries()) {
      // Only the network of the request is kept, never the address.
      expect(e.ipNetwork).toBe('127.0.0.0/24');
      expect(Number.isInteger(e.createdAt)).toBe(true);
      if (i > 0) expect(e.createdAt).toBeLessThanOrEqual(events[i - 1]!.createdAt);
    }
    expect(events.find((e) => e.name === 'account.email_verified')?.additionalInfo).toEqual({ method: 'code' });
    expect(events[0]!.createdAt).toBeGreaterThan(Date.now() - 60_000);
  });

  it('never shows another account\'s events', async () => {
    const a = await verifiedAccount(t, 'password of a');
    const b = await verifiedAccount(t, 'password of b');
    await expectError(t.accounts.signIn(a.email, 'wrong for a'), 'INCORRECT_PASSWORD');
    await t.accounts.signIn(a.email, 'password of a');
    expect((await t.client.securityEvents(b.sessionToken)).map((e) => e.name)).toEqual(['account.email_verified', 'account.create']);
    expect((await t.client.securityEvents(a.sessionToken)).map((e) => e.name)).toEqual(['account.login', 'account.login.failure', 'account.email_verified', 'account.create']);
  });

  it('needs a confirmed session: unconfirmed 400/138, none or unknown 401/110', async () => {
    const email = newEmail();
    const signedUp = await t.accounts.signUp(email, 'some password', { verificationMethod: 'email-otp' });
    await expectError(t.client.securityEvents(signedUp.sessionToken), 'SESSION_UNVERIFIED', 400);
    expectError(await rawRequest(t.url, 'GET', '/securityEvents'), 'INVALID_TOKEN', 401);
    expectError(await rawRequest(t.url, 'GET', '/securityEvents', { authorization: `Bearer fxs_${'ab'.repeat(32)}` }), 'INVALID_TOKEN', 401);
  });

  it('records a confirmed sign-in, a sign-out, a reset request and a reset', async () => {
    const email = newEmail('confirm');
    const since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, 'a password', { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });

    const signin = await t.accounts.signIn(email, 'a password', { verificationMethod: 'email-otp' });
    expect(signin.verified).toBe(false);
    await t.client.sessionVerifyCode(signin.sessionToken, { code: (await t.mail.waitFor(email, 'verifyLoginCode', since)).code! });
    await t.client.sessionDestroy(signin.sessionToken);

    const sent = await t.client.passwordForgotSendCode({ email });
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(sent.passwordForgotToken, { code: (await t.mail.waitFor(email, 'recoveryEmail', since)).code! });
    const reset = await t.accounts.resetPassword(accountResetToken, email, 'another password');

    const events = await t.client.securityEvents(reset.sessionToken!);
    expect(events.map((e) => [e.name, e.verified, e.additionalInfo ?? null])).toEqual([
      ['account.password_reset', true, null],
      ['account.password_reset_requested', false, { method: 'code' }],
      ['session.destroy', true, { session: 'current' }],
      ['account.login.confirmed', true, { method: 'code' }],
      ['account.login', false, null],
      ['account.email_verified', true, { method: 'code' }],
      ['account.create', false, null],
    ]);
  });

  it('records a confirmation by emailed link', async () => {
    const email = newEmail();
    const since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, 'linked password');
    await t.client.recoveryEmailVerifyCode({ uid: signedUp.uid, code: (await t.mail.waitFor(email, 'verify', since)).code! });
    const events = await t.client.securityEvents(signedUp.sessionToken);
    expect(events.map((e) => [e.name, e.additionalInfo ?? null])).toEqual([['account.email_verified', { method: 'link' }], ['account.create', null]]);
  });

  it('deletes the events with the account and tells the owner by email', async () => {
    const acct = await verifiedAccount(t, 'doomed password');
    const { authPW } = await t.accounts.credentialsFor(acct.email, acct.password);
    await expectError(t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW: 'c'.repeat(64) }), 'INCORRECT_PASSWORD');
    expect((await t.client.securityEvents(acct.sessionToken))[0]!.name).toBe('account.login.failure');
    const since = t.mail.messages.length;

    await t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW });

    const mail = await t.mail.waitFor(acct.email, 'accountDeleted', since);
    expect(mail.subject).toBe('Your account has been deleted');
    expect(mail.text).toMatch(/deleted at \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)/);
    expect(await storedEvents(t, acct.uid)).toBe(0);
    await expectError(t.client.securityEvents(acct.sessionToken), 'INVALID_TOKEN', 401);
  });
});

describe.each(httpDialects())('security event retention (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({
      dialect, manualClock: true,
      env: { SECURITY_EVENTS_MAX_PER_NAME: '2', SECURITY_EVENTS_RETENTION_DAYS: '90', SESSION_TOKEN_LIFETIME_WITHOUT_DEVICE_SECONDS: '0' },
    });
  });
  afterAll(async () => t?.close());

  it('keeps the newest events of each name, so failures cannot push a sign-in out', async () => {
    const acct = await verifiedAccount(t, 'kept password');
    await t.accounts.signIn(acct.email, 'kept password');
    for (let i = 0; i < 3; i++) {
      t.clock!.advance(1000);
      await expectError(t.accounts.signIn(acct.email, `wrong ${i}`), 'INCORRECT_PASSWORD');
    }
    const events = await t.client.securityEvents(acct.sessionToken);
    expect(events.map((e) => e.name)).toEqual(['account.login.failure', 'account.login.failure', 'account.login', 'account.email_verified', 'account.create']);
    expect(await storedEvents(t, acct.uid)).toBe(5);
  });

  it('lists nothing older than the retention period, and the sweep deletes it', async () => {
    const acct = await verifiedAccount(t, 'old password');
    t.clock!.advance(89 * DAY_MS);
    expect(await t.client.securityEvents(acct.sessionToken)).toHaveLength(2);
    t.clock!.advance(2 * DAY_MS);
    await t.accounts.signIn(acct.email, 'old password');
    expect((await t.client.securityEvents(acct.sessionToken)).map((e) => e.name)).toEqual(['account.login']);
    expect(await storedEvents(t, acct.uid)).toBe(3);
    expect(await t.app.services.securityEvents.sweep()).toBeGreaterThanOrEqual(2);
    expect(await storedEvents(t, acct.uid)).toBe(1);
  });
});
