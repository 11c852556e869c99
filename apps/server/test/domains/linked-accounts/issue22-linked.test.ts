import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { LocalIssuer } from './oidc-issuer.js';
import { codeAt, nextStep, twoStepAccount } from '../two-step/two-step-helpers.js';

// Issue 22 for sign-in with Google and Apple:
// - hole 1: a linked sign-in to an account with two-step authentication waits for the second
//   factor, and nothing but the second factor confirms it (no email, no token without AAL2);
// - hole 8: an unconfirmed secondary-address claim by another account never blocks the sign-in of
//   the person the provider verified that address for;
// - id_tokens issued in the future, or to several audiences without our client as `azp`, are refused.

const GOOGLE_CLIENT = 'issue22-client.apps.googleusercontent.example';
const CONFIRMATION_MAILS = ['verify', 'verifyLogin', 'verifyShortCode', 'verifyLoginCode'];
let sub = 0;
const newSub = () => `i22-${Date.now()}${++sub}`;

describe.each(httpDialects())('linked accounts, issue 22 (%s)', (dialect) => {
  let t: TestServer;
  let google: LocalIssuer;
  const now = () => t.clock!.now();

  beforeAll(async () => {
    google = new LocalIssuer('https://accounts.google.example', GOOGLE_CLIENT, () => now());
    const keys = await google.start();
    t = await createTestServer({
      dialect, manualClock: true,
      env: {
        LINKED_ACCOUNT_GOOGLE_ENABLED: 'true', LINKED_ACCOUNT_GOOGLE_CLIENT_IDS: `our-android-client,${GOOGLE_CLIENT}`,
        LINKED_ACCOUNT_GOOGLE_ISSUERS: google.issuer, LINKED_ACCOUNT_GOOGLE_JWKS_URL: keys,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await google?.stop();
  });

  const googleLogin = async (subject: string, claims: Record<string, unknown> = {}) =>
    t.client.linkedAccountLogin({ provider: 'google', idToken: await google.idToken(subject, claims) });

  it('hole 1: a linked sign-in to a two-step account is confirmed by the second factor only, never by email, and gets no token before', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const browser = randomHex(8);
    const secret = randomHex(32);
    await t.app.services.oauth.registerClient(t.storage.db, { id: browser, name: 'Browser', redirectUris: ['urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel'], secret, publicClient: false, trusted: true, canGrant: true, allowedScopes: ['profile'], createdAt: 1 });
    const since = t.mail.messages.length;
    const res = await googleLogin(newSub(), { email: acct.email });
    expect(res).toMatchObject({ uid: acct.uid, verified: false, sessionVerified: false, verificationMethod: 'totp-2fa' });
    const token = () => t.client.oauthToken({ sessionToken: res.sessionToken }, { grant_type: 'fxa-credentials', client_id: browser, client_secret: secret, scope: 'profile', access_type: 'offline' });

    // With the mailbox but not the app: asking for a code fails, and no code would confirm it.
    await expect(t.client.sessionResendCode(res.sessionToken, {})).rejects.toThrow();
    await expect(t.client.recoveryEmailResendCode(res.sessionToken, {})).rejects.toThrow();
    await expect(t.client.sessionVerifyCode(res.sessionToken, { code: '123456' })).rejects.toThrow();
    expect(t.mail.messages.slice(since).filter((m) => m.to === acct.email.toLowerCase() && CONFIRMATION_MAILS.includes(m.template))).toEqual([]);
    expect((await t.client.sessionStatus(res.sessionToken)).details).toMatchObject({ sessionVerified: false });
    await expect(token()).rejects.toThrow();

    nextStep(t);
    expect(await t.client.sessionVerifyTotp(res.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(res.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true });
    expect((await token()).access_token).toBeTruthy();
  });

  describe('hole 8: a provider-verified address wins over another account\'s unconfirmed claim', () => {
    it('an old claim (past SECONDARY_EMAIL_PENDING_SECONDS) is removed, and the sign-in opens an account', async () => {
      const claimant = await verifiedAccount(t);
      const email = newEmail('claimed');
      await t.client.recoveryEmailCreate(claimant.sessionToken, { email });
      t.clock!.advance((t.config.secondaryEmails.pendingSeconds + 3600) * 1000);
      const res = await googleLogin(newSub(), { email });
      expect(res).toMatchObject({ email, verified: true });
      expect(res.uid).not.toBe(claimant.uid);
      expect((await t.client.recoveryEmails(claimant.sessionToken)).map((e) => e.email)).toEqual([claimant.email]);
      // The claimant's pending code no longer confirms anything.
      await expect(t.client.recoveryEmailSecondaryVerifyCode(claimant.sessionToken, { email, code: '123456' })).rejects.toThrow();
      expect((await t.client.account(res.sessionToken)).email).toBe(email);
    });

    it('a claim still inside its pending window is removed too: only the mailbox owner could finish it', async () => {
      const claimant = await verifiedAccount(t);
      const email = newEmail('fresh-claim');
      await t.client.recoveryEmailCreate(claimant.sessionToken, { email });
      const res = await googleLogin(newSub(), { email });
      expect(res.uid).not.toBe(claimant.uid);
      expect((await t.client.recoveryEmails(claimant.sessionToken)).map((e) => e.email)).toEqual([claimant.email]);
    });

    it('a confirmed secondary address still does not sign in (142)', async () => {
      const holder = await verifiedAccount(t);
      const email = newEmail('confirmed-secondary');
      const since = t.mail.messages.length;
      await t.client.recoveryEmailCreate(holder.sessionToken, { email });
      const code = (await t.mail.waitFor(email, 'verifySecondaryCode', since)).code!;
      await t.client.recoveryEmailSecondaryVerifyCode(holder.sessionToken, { email, code });
      await expectError(googleLogin(newSub(), { email }), 'LOGIN_WITH_SECONDARY_EMAIL', 400);
      expect((await t.client.recoveryEmails(holder.sessionToken)).map((e) => e.email)).toContain(email);
    });
  });

  describe('id_token claims (OpenID Connect Core §3.1.3.7)', () => {
    it('refuses an iat in the future beyond LINKED_ACCOUNT_CLOCK_TOLERANCE_SECONDS, accepts one within it', async () => {
      const iat = Math.floor(now() / 1000);
      const tolerance = t.config.linkedAccounts.clockToleranceSeconds;
      const email = newEmail('future');
      const err = await expectError(googleLogin(newSub(), { email, iat: iat + tolerance + 60, exp: iat + 3600 }), 'INVALID_PARAMETER', 400);
      expect(err.message).toMatch(/iat|future|issued/i);
      expect((await t.client.accountStatusByEmail({ email })).exists).toBe(false);
      expect((await googleLogin(newSub(), { email, iat: iat + tolerance, exp: iat + 3600 })).email).toBe(email);
    });

    it('refuses an aud naming another client unless azp is ours', async () => {
      const refused = newEmail('aud');
      const err = await expectError(googleLogin(newSub(), { email: refused, aud: [GOOGLE_CLIENT, 'someone-else'] }), 'INVALID_PARAMETER', 400);
      expect(err.message).toMatch(/azp|audience/);
      await expectError(googleLogin(newSub(), { email: refused, aud: [GOOGLE_CLIENT, 'someone-else'], azp: 'someone-else' }), 'INVALID_PARAMETER', 400);
      expect((await t.client.accountStatusByEmail({ email: refused })).exists).toBe(false);
      // Ours as the authorized party, or every audience ours: accepted.
      expect((await googleLogin(newSub(), { email: newEmail('aud-azp'), aud: [GOOGLE_CLIENT, 'someone-else'], azp: GOOGLE_CLIENT })).verified).toBe(true);
      expect((await googleLogin(newSub(), { email: newEmail('aud-ours'), aud: [GOOGLE_CLIENT, 'our-android-client'] })).verified).toBe(true);
      // One audience, ours, with another party as azp (Google's Android sign-in): accepted.
      expect((await googleLogin(newSub(), { email: newEmail('aud-android'), aud: GOOGLE_CLIENT, azp: '123-android.apps.googleusercontent.example' })).verified).toBe(true);
    });
  });
});
