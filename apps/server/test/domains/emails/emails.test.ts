import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { bounceLog } from '../../../src/domains/emails/index.js';

describe('mail delivery and bounces', () => {
  let t: TestServer;
  beforeAll(async () => {
    // Every sign-in needs confirmation here, so sign-ins send mail that can fail.
    t = await createTestServer({ env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
  });
  afterAll(async () => t?.close());

  it('answers 422/151 when the mail server refuses the address, creates nothing, and records the bounce', async () => {
    const email = newEmail('refused');
    t.mail.reject(email, 550);
    const err = await expectError(t.accounts.signUp(email, 'some password'), 'FAILED_TO_SEND_EMAIL', 422);
    expect(err.errno).toBe(151);
    expect(await t.client.accountStatusByEmail({ email })).toEqual({ exists: false });
    // The hard bounce is remembered: no more mail to that address.
    const again = await expectError(t.accounts.signUp(email, 'some password'), 'BOUNCE_HARD', 400);
    expect(again.errno).toBe(134);
    expect(typeof again.body.bouncedAt).toBe('number');
    expect(await t.client.accountStatusByEmail({ email })).toEqual({ exists: false });
  });

  it('pauses mail after a soft bounce (135)', async () => {
    const email = newEmail('busy');
    t.mail.reject(email, 450);
    await expectError(t.accounts.signUp(email, 'some password'), 'FAILED_TO_SEND_EMAIL', 422);
    await expectError(t.accounts.signUp(email, 'some password'), 'BOUNCE_SOFT', 400);
  });

  it('refuses complained addresses (133)', async () => {
    const email = newEmail('complaint');
    await bounceLog(t.storage.db).record(email, 'complaint', 'feedback loop report', Date.now());
    const err = await expectError(t.accounts.signUp(email, 'some password'), 'BOUNCE_COMPLAINT', 400);
    expect(err.errno).toBe(133);
  });

  it('leaves a sign-in without a session when its confirmation mail cannot be sent', async () => {
    const acct = await verifiedAccount(t);
    const sessionsBefore = await t.storage.db.selectFrom('session_tokens').select('id_hash').where('uid', '=', acct.uid).execute();
    t.mail.reject(acct.email, 550);
    await expectError(t.accounts.signIn(acct.email, acct.password), 'FAILED_TO_SEND_EMAIL', 422);
    const sessionsAfter = await t.storage.db.selectFrom('session_tokens').select('id_hash').where('uid', '=', acct.uid).execute();
    expect(sessionsAfter).toHaveLength(sessionsBefore.length);
  });

  it('refuses a sign-in or reauth that must mail a bounced address, and leaves no session behind (134)', async () => {
    const acct = await verifiedAccount(t);
    const sessionsBefore = await t.storage.db.selectFrom('session_tokens').select('id_hash').where('uid', '=', acct.uid).execute();
    await bounceLog(t.storage.db).record(acct.email, 'hard', 'reported by the mail provider', Date.now());
    await expectError(t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' }), 'BOUNCE_HARD', 400);
    const sessionsAfter = await t.storage.db.selectFrom('session_tokens').select('id_hash').where('uid', '=', acct.uid).execute();
    expect(sessionsAfter).toHaveLength(sessionsBefore.length);
    await bounceLog(t.storage.db).clear(acct.email);
    // An unconfirmed sign-in's reauth resends its code: the bounce refuses that too.
    const pending = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    await bounceLog(t.storage.db).record(acct.email, 'soft', 'mailbox full', Date.now());
    const creds = await t.accounts.credentialsFor(acct.email, acct.password);
    await expectError(t.client.sessionReauth(pending.sessionToken, { email: acct.email, authPW: creds.authPW, verificationMethod: 'email-otp' }), 'BOUNCE_SOFT', 400);
  });

  it('lets a sign-in that needs no confirmation stand when its notice cannot be sent', async () => {
    const lenient = await createTestServer();
    try {
      const acct = await verifiedAccount(lenient);
      lenient.mail.reject(acct.email, 550);
      const login = await lenient.accounts.signIn(acct.email, acct.password);
      expect(login.verified).toBe(true);
      expect((await lenient.client.sessionStatus(login.sessionToken)).state).toBe('verified');
    } finally {
      await lenient.close();
    }
  });

  it('answers 500/151 when the mail server cannot be reached', async () => {
    const down = await createTestServer({ env: {} });
    try {
      await down.mail.stop();
      const email = newEmail();
      await expectError(down.accounts.signUp(email, 'some password'), 'FAILED_TO_SEND_EMAIL', 500);
      expect(await down.client.accountStatusByEmail({ email })).toEqual({ exists: false });
    } finally {
      await down.app.close();
      await down.storage.destroy();
    }
  });

  it('renders a plain-text and an HTML part in the account language', async () => {
    const email = newEmail();
    await t.accounts.signUp(email, 'some password', { verificationMethod: 'email-otp' });
    const mail = await t.mail.waitFor(email, 'verifyShortCode');
    expect(mail.subject).toBe(`Your account confirmation code: ${mail.code}`);
    expect(mail.text).toContain(`Your code: ${mail.code}`);
    expect(mail.html).toContain('<h1');
    expect(mail.html).toContain(mail.code);
  });
});
