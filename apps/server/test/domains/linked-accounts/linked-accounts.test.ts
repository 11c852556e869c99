import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stretchV1 } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { LocalIssuer, strangerKey, unsignedToken } from './oidc-issuer.js';
import { codeAt, nextStep, twoStepAccount } from '../two-step/two-step-helpers.js';

// Sign-in with Google and Apple through HTTP with the SDK (issue 13), against two local OpenID
// providers: each has its own key pair and serves its JWK Set on 127.0.0.1; the server is pointed
// at them by configuration, as it would be at Google's and Apple's.

const GOOGLE_CLIENT = 'test-client.apps.googleusercontent.example';
const APPLE_CLIENT = 'com.example.tessera.signin';
let sub = 0;
const newSub = () => `${Date.now()}${++sub}`;

describe.each(httpDialects())('linked accounts (%s)', (dialect) => {
  let t: TestServer;
  let google: LocalIssuer;
  let apple: LocalIssuer;
  const now = () => t.clock!.now();

  beforeAll(async () => {
    google = new LocalIssuer('https://accounts.google.example', GOOGLE_CLIENT, () => now());
    apple = new LocalIssuer('https://appleid.apple.example', APPLE_CLIENT, () => now());
    const [googleKeys, appleKeys] = await Promise.all([google.start(), apple.start()]);
    t = await createTestServer({
      dialect, manualClock: true,
      env: {
        LINKED_ACCOUNT_GOOGLE_ENABLED: 'true', LINKED_ACCOUNT_GOOGLE_CLIENT_IDS: `other-client,${GOOGLE_CLIENT}`,
        LINKED_ACCOUNT_GOOGLE_ISSUERS: google.issuer, LINKED_ACCOUNT_GOOGLE_JWKS_URL: googleKeys,
        LINKED_ACCOUNT_APPLE_ENABLED: 'true', LINKED_ACCOUNT_APPLE_CLIENT_IDS: APPLE_CLIENT,
        LINKED_ACCOUNT_APPLE_ISSUERS: apple.issuer, LINKED_ACCOUNT_APPLE_JWKS_URL: appleKeys,
        LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED: 'true',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await google?.stop();
    await apple?.stop();
  });

  const googleLogin = async (subject: string, claims: Record<string, unknown> = {}, nonce?: string) =>
    t.client.linkedAccountLogin({ provider: 'google', idToken: await google.idToken(subject, claims), ...(nonce ? { nonce } : {}) });
  const appleLogin = async (subject: string, claims: Record<string, unknown> = {}) =>
    t.client.linkedAccountLogin({ provider: 'apple', idToken: await apple.idToken(subject, claims) });
  const exists = async (email: string) => (await t.client.accountStatusByEmail({ email, thirdPartyAuthStatus: true }));

  it('opens a passwordless account with a confirmed session from a valid Google token', async () => {
    const email = newEmail('google');
    const subject = newSub();
    const res = await googleLogin(subject, { email });
    expect(res).toMatchObject({ providerUid: subject, email, emailVerified: true, sessionVerified: true, verified: true });
    expect(res.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(res.sessionToken).toMatch(/^[0-9a-f]{64}$/);
    expect(res).not.toHaveProperty('verificationMethod');

    const account = await t.client.account(res.sessionToken);
    expect(account).toMatchObject({ uid: res.uid, email, emailVerified: true, hasPassword: false, passwordCreatedAt: 0 });
    expect(account.linkedAccounts).toEqual([{ providerId: 'google', authAt: expect.any(Number), enabled: true }]);
    expect(await exists(email)).toMatchObject({ exists: true, hasLinkedAccount: true, hasPassword: false });
    expect((await t.client.sessionStatus(res.sessionToken)).state).toBe('verified');
    // No password: a password sign-in is 210, whatever is typed.
    await expectError(t.accounts.signIn(email, 'any password at all'), 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 400);
  });

  it('signs the same subject in to the same account; a replayed token opens nothing', async () => {
    const email = newEmail('again');
    const subject = newSub();
    const token = await google.idToken(subject, { email });
    const first = await t.client.linkedAccountLogin({ provider: 'google', idToken: token });
    // Same person, a new token, even with another address now: the subject decides.
    const second = await googleLogin(subject, { email: newEmail('changed') });
    expect(second.uid).toBe(first.uid);
    expect(second.email).toBe(email);
    await expectError(t.client.linkedAccountLogin({ provider: 'google', idToken: token }), 'INVALID_PARAMETER', 400);
    const clients = await t.client.accountAttachedClients(second.sessionToken);
    expect(clients).toHaveLength(2);
    expect(clients.every((c) => c.providerId === 'google')).toBe(true);
  });

  it('spends a token once when two sign-ins race with it', async () => {
    const email = newEmail('race');
    const token = await google.idToken(newSub(), { email });
    const results = await Promise.allSettled([1, 2, 3].map(() => t.client.linkedAccountLogin({ provider: 'google', idToken: token })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const won = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ sessionToken: string }>).value;
    expect(await t.client.accountAttachedClients(won.sessionToken)).toHaveLength(1);
  });

  it('links to the account whose confirmed address the provider verified; attached clients tell the sessions apart', async () => {
    const acct = await verifiedAccount(t);
    const res = await googleLogin(newSub(), { email: acct.email });
    expect(res.uid).toBe(acct.uid);
    expect(res.verified).toBe(true);
    const account = await t.client.account(acct.sessionToken);
    expect(account.linkedAccounts.map((l) => l.providerId)).toEqual(['google']);
    expect(account.hasPassword).toBe(true);
    const clients = await t.client.accountAttachedClients(acct.sessionToken);
    expect(clients.map((c) => c.providerId).sort()).toEqual(['google', null]);
    // The password still works.
    expect((await t.accounts.signIn(acct.email, acct.password)).uid).toBe(acct.uid);
  });

  it('a linked sign-in to an account with two-step waits for the second factor (issue 12)', { timeout: 120_000 }, async () => {
    const acct = await twoStepAccount(t);
    const res = await googleLogin(newSub(), { email: acct.email });
    expect(res).toMatchObject({ uid: acct.uid, verified: false, verificationMethod: 'totp-2fa' });
    await expectError(t.client.recoveryCodesGenerate(res.sessionToken), 'SESSION_UNVERIFIED');
    nextStep(t);
    expect(await t.client.sessionVerifyTotp(res.sessionToken, { code: codeAt(t, acct.app) })).toEqual({ success: true });
    expect((await t.client.sessionStatus(res.sessionToken)).details.sessionVerificationMeetsMinimumAAL).toBe(true);
  });

  it('replaces an unconfirmed sign-up holding the address instead of linking to it (no pre-account hijack)', async () => {
    const email = newEmail('victim');
    const squatter = await t.accounts.signUp(email, 'the squatter knows this');
    const res = await googleLogin(newSub(), { email });
    expect(res.uid).not.toBe(squatter.uid);
    await expectError(t.accounts.signIn(email, 'the squatter knows this'), 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 400);
    await expectError(t.client.account(squatter.sessionToken), 'INVALID_TOKEN', 401);
  });

  describe('refuses a token that fails a check, and creates nothing', () => {
    const cases: [string, (email: string) => Promise<string>][] = [
      ['wrong audience', (email) => google.idToken(newSub(), { email, aud: 'someone-elses-client' })],
      ['wrong issuer', (email) => google.idToken(newSub(), { email, iss: 'https://evil.example' })],
      ['wrong signature', async (email) => google.idToken(newSub(), { email }, { key: await strangerKey() })],
      ['alg none', async (email) => unsignedToken({ iss: google.issuer, aud: GOOGLE_CLIENT, sub: newSub(), email, email_verified: true, iat: Math.floor(now() / 1000), exp: Math.floor(now() / 1000) + 600 })],
      ['unverified email', (email) => google.idToken(newSub(), { email, email_verified: false })],
      ['no email', () => google.idToken(newSub(), {})],
      ['Apple\'s token sent as Google\'s', (email) => apple.idToken(newSub(), { email })],
    ];
    it.each(cases)('%s', async (_name, make) => {
      const email = newEmail('refused');
      const err = await expectError(t.client.linkedAccountLogin({ provider: 'google', idToken: await make(email) }), 'INVALID_PARAMETER', 400);
      expect(err.message).toMatch(/refused|verified|email/);
      expect((await exists(email)).exists).toBe(false);
    });

    it('expired (past exp and the tolerance, on the server clock)', async () => {
      const email = newEmail('expired');
      const token = await google.idToken(newSub(), { email }, { lifetimeSeconds: 60 });
      t.clock!.advance(66_000);
      const err = await expectError(t.client.linkedAccountLogin({ provider: 'google', idToken: token }), 'INVALID_PARAMETER', 400);
      expect(err.message).toMatch(/expired/);
      expect((await exists(email)).exists).toBe(false);
    });

    it('nonce mismatch (and a missing nonce when one is sent)', async () => {
      const email = newEmail('nonce');
      await expectError(googleLogin(newSub(), { email, nonce: 'n-0S6_WzA2Mj' }, 'another-nonce'), 'INVALID_PARAMETER', 400);
      await expectError(googleLogin(newSub(), { email }, 'n-0S6_WzA2Mj'), 'INVALID_PARAMETER', 400);
      expect((await exists(email)).exists).toBe(false);
      const ok = await googleLogin(newSub(), { email, nonce: 'n-0S6_WzA2Mj' }, 'n-0S6_WzA2Mj');
      expect(ok.email).toBe(email);
    });

    it('an unverified provider address never links to the account holding it', async () => {
      const acct = await verifiedAccount(t);
      await expectError(googleLogin(newSub(), { email: acct.email, email_verified: false }), 'INVALID_PARAMETER', 400);
      expect((await t.client.account(acct.sessionToken)).linkedAccounts).toEqual([]);
      expect(await t.client.accountAttachedClients(acct.sessionToken)).toHaveLength(1);
    });
  });

  it('accepts Apple tokens with string booleans and private relay addresses', async () => {
    const email = `${Date.now().toString(36)}${++sub}@privaterelay.appleid.example`;
    const res = await appleLogin(newSub(), { email, email_verified: 'true', is_private_email: 'true' });
    expect(res).toMatchObject({ email, verified: true });
    expect((await t.client.account(res.sessionToken)).linkedAccounts.map((l) => l.providerId)).toEqual(['apple']);
  });

  describe('unlink', () => {
    it('refuses to remove the only way in; allowed once a password exists', async () => {
      const email = newEmail('only');
      const res = await googleLogin(newSub(), { email });
      await expectError(t.client.linkedAccountUnlink(res.sessionToken, { provider: 'google' }), 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 400);
      await expectError(t.client.linkedAccountUnlink(res.sessionToken, { provider: 'apple' }), 'INVALID_PARAMETER', 400);
      const creds = await stretchV1(email, 'a password at last');
      await t.client.passwordCreate(res.sessionToken, { authPW: creds.authPW });
      await t.client.linkedAccountUnlink(res.sessionToken, { provider: 'google' });
      const account = await t.client.account(res.sessionToken);
      expect(account.linkedAccounts).toEqual([]);
      expect(account.hasPassword).toBe(true);
      // The caller's session stays; it is no longer marked as Google's.
      expect((await t.client.accountAttachedClients(res.sessionToken)).map((c) => c.providerId)).toEqual([null]);
    });

    it('ends the other sessions the link opened', async () => {
      const acct = await verifiedAccount(t);
      const subject = newSub();
      const a = await googleLogin(subject, { email: acct.email });
      const b = await googleLogin(subject, { email: acct.email });
      await t.client.linkedAccountUnlink(a.sessionToken, { provider: 'google' });
      await expectError(t.client.account(b.sessionToken), 'INVALID_TOKEN', 401);
      expect((await t.client.account(a.sessionToken)).linkedAccounts).toEqual([]);
      expect((await t.client.account(acct.sessionToken)).uid).toBe(acct.uid);
      // The subject is free again: signing in with it links again.
      expect((await googleLogin(subject, { email: acct.email })).uid).toBe(acct.uid);
    });

    it('leaves one link when two unlinks race on an account without a password', async () => {
      const email = newEmail('two-links');
      const g = await googleLogin(newSub(), { email });
      const a = await appleLogin(newSub(), { email });
      expect(a.uid).toBe(g.uid);
      const results = await Promise.allSettled([
        t.client.linkedAccountUnlink(g.sessionToken, { provider: 'google' }),
        t.client.linkedAccountUnlink(g.sessionToken, { provider: 'apple' }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await t.client.account(g.sessionToken)).linkedAccounts).toHaveLength(1);
    });

    it('needs a session', async () => {
      await expectError(t.client.linkedAccountUnlink('00'.repeat(32), { provider: 'google' }), 'INVALID_TOKEN', 401);
    });
  });

  describe('Apple notifications', () => {
    it('consent-revoked disables the link and ends its sessions; the next Apple sign-in enables it again', async () => {
      const acct = await verifiedAccount(t);
      const subject = newSub();
      const signedIn = await appleLogin(subject, { email: acct.email });
      await t.client.linkedAccountAppleNotification({ payload: await apple.notification({ type: 'consent-revoked', sub: subject }) });
      await expectError(t.client.account(signedIn.sessionToken), 'INVALID_TOKEN', 401);
      expect((await t.client.account(acct.sessionToken)).linkedAccounts).toEqual([{ providerId: 'apple', authAt: expect.any(Number), enabled: false }]);
      await appleLogin(subject, { email: acct.email });
      expect((await t.client.account(acct.sessionToken)).linkedAccounts[0]!.enabled).toBe(true);
    });

    it('account-delete removes the link; a subject not linked changes nothing', async () => {
      const email = newEmail('apple-gone');
      const subject = newSub();
      const g = await googleLogin(newSub(), { email });
      await appleLogin(subject, { email });
      await t.client.linkedAccountAppleNotification({ payload: await apple.notification({ type: 'account-delete', sub: subject }) });
      expect((await t.client.account(g.sessionToken)).linkedAccounts.map((l) => l.providerId)).toEqual(['google']);
      expect(await t.client.linkedAccountAppleNotification({ payload: await apple.notification({ type: 'account-delete', sub: 'nobody' }) })).toEqual({});
    });

    it('refuses a notification not signed by Apple', async () => {
      const forged = await google.notification({ type: 'account-delete', sub: 'x' });
      await expectError(t.client.linkedAccountAppleNotification({ payload: forged }), 'INVALID_PARAMETER', 400);
    });

    it('declares its auth like every other route: the appleNotification strategy, which proves the payload once the body\'s schema passed', async () => {
      const doc = await (await fetch(`${t.url}/v1/openapi.json`)).json() as { paths: Record<string, { post: { 'x-auth': unknown; security: unknown } }> };
      expect(doc.paths['/v1/linked_account/apple/notification']!.post['x-auth']).toEqual({ strategies: ['appleNotification'] });
      // The credential is in the documented body: no header scheme to present.
      expect(doc.paths['/v1/linked_account/apple/notification']!.post.security).toEqual([]);
      const reply = await fetch(`${t.url}/v1/linked_account/apple/notification`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      // The body's schema answers first, as before the strategy existed: 400/108, payload missing.
      expect(reply.status).toBe(400);
      expect(await reply.json()).toMatchObject({ errno: 108 });
    });
  });
});

describe('linked accounts when no provider is configured', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect: 'sqlite' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 503/202 for both providers and for Apple notifications', async () => {
    const idToken = unsignedToken({ sub: '1' });
    await expectError(t.client.linkedAccountLogin({ provider: 'google', idToken }), 'FEATURE_NOT_ENABLED', 503);
    await expectError(t.client.linkedAccountLogin({ provider: 'apple', idToken }), 'FEATURE_NOT_ENABLED', 503);
    await expectError(t.client.linkedAccountAppleNotification({ payload: idToken }), 'FEATURE_NOT_ENABLED', 503);
  });
});
