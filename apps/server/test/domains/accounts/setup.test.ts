import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex, stretchV1 } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { browserAvailable, launchChromium } from '../../browser.js';

// Stub accounts (issue 9, hole 1): only confidential, allow-listed clients that prove their secret
// may create them, and the setup token that confirms one reaches only the mailbox.
describe.each(httpDialects())('stub accounts and account setup (%s)', (dialect) => {
  let t: TestServer;
  const clientId = randomHex(8);
  const clientSecret = randomHex(32);
  const unlistedId = randomHex(8);
  const publicId = randomHex(8);
  const secondId = randomHex(8);
  const client = (id: string, secret: string | null, publicClient = false) => ({
    id, name: 'Checkout', imageUri: '', redirectUri: 'https://shop.example/callback', secret,
    trusted: true, publicClient, canGrant: false, allowedScopes: ['profile'], createdAt: Date.now(),
  });
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { ACCOUNT_STUB_CLIENT_IDS: `${clientId},${publicId},${secondId}` } });
    const { oauth } = t.app.services;
    await oauth.registerClient(t.storage.db, client(clientId, clientSecret));
    await oauth.registerClient(t.storage.db, client(unlistedId, randomHex(32)));
    await oauth.registerClient(t.storage.db, client(publicId, null, true));
    await oauth.registerClient(t.storage.db, client(secondId, randomHex(32)));
  });
  afterAll(async () => t?.close());

  it('creates a stub, sets its password with the access token, and confirms by code', async () => {
    const email = newEmail('stub');
    const stub = await t.client.accountStub({ email, clientId, clientSecret });
    expect(stub.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(stub).not.toHaveProperty('setup_token');
    // No password yet: sign-in is refused, the profile is readable with the token.
    await expectError(t.client.accountLogin({ email, authPW: 'a'.repeat(64) }), 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 400);
    const profile = await t.client.accountProfile({ accessToken: stub.access_token });
    expect(profile.email).toBeUndefined(); // the stub token's scopes do not include profile:email
    expect(profile.profileChangedAt).toBeGreaterThan(0);

    const creds = await stretchV1(email, 'stub password');
    const set = await t.client.accountSetPassword(stub.access_token, { authPW: creds.authPW });
    expect(set.uid).toBe(stub.uid);
    const code = (await t.mail.waitFor(email, 'verifyShortCode')).code!;
    await t.client.sessionVerifyCode(set.sessionToken, { code });
    expect((await t.client.sessionStatus(set.sessionToken)).state).toBe('verified');
    await expectError(t.client.accountSetPassword(stub.access_token, { authPW: creds.authPW }), 'CANNOT_CREATE_PASSWORD', 400);
    expect((await t.client.accountLogin({ email, authPW: creds.authPW })).uid).toBe(stub.uid);
  });

  it('mails the setup link to the address (never the reply) and finishes setup with its token, once', async () => {
    const email = newEmail('setup');
    const since = t.mail.messages.length;
    const stub = await t.client.accountStub({ email, clientId, clientSecret, wantsSetupToken: true });
    expect(stub).not.toHaveProperty('setup_token');
    const mail = await t.mail.waitFor(email, 'finishSetup', since);
    const link = new URL(mail.link!);
    expect(link.pathname).toBe('/finish_setup');
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const creds = await stretchV1(email, 'setup password');
    const done = await t.client.accountFinishSetup({ token, authPW: creds.authPW });
    expect(done).toMatchObject({ uid: stub.uid, verified: true });
    expect(await t.client.recoveryEmailStatus(done.sessionToken)).toMatchObject({ verified: true, emailVerified: true });
    const again = await expectError(t.client.accountFinishSetup({ token, authPW: creds.authPW }), 'INVALID_TOKEN', 401);
    expect(again.body.detail).toMatch(/already used/);
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expectError(t.client.accountFinishSetup({ token: forged, authPW: creds.authPW }), 'INVALID_TOKEN', 401);
  });

  it('GET /finish_setup checks the link as it opens: the form, already used, or no longer works (issue 10)', async () => {
    const email = newEmail('setup-page');
    const since = t.mail.messages.length;
    await t.client.accountStub({ email, clientId, clientSecret, wantsSetupToken: true });
    const link = new URL((await t.mail.waitFor(email, 'finishSetup', since)).link!);
    const ready = await fetch(link);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('id="setup"');
    const token = link.searchParams.get('token')!;
    const forged = new URL(link);
    forged.searchParams.set('token', token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA'));
    const invalid = await fetch(forged);
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('This link no longer works');
    await t.client.accountFinishSetup({ token, authPW: (await stretchV1(email, 'setup password')).authPW });
    const used = await (await fetch(link)).text();
    expect(used).toContain('Your account already has a password');
    expect(used).not.toContain('id="setup"');
    expect(used).toContain(`signin ${email}`);
  });

  it('refuses unknown, unlisted and public clients (162) and a wrong or missing secret (171, 108)', async () => {
    await expectError(t.client.accountStub({ email: newEmail(), clientId: 'ffffffffffffffff', clientSecret }), 'UNKNOWN_CLIENT_ID', 400);
    await expectError(t.client.accountStub({ email: newEmail(), clientId: unlistedId, clientSecret }), 'UNKNOWN_CLIENT_ID', 400);
    await expectError(t.client.accountStub({ email: newEmail(), clientId: publicId, clientSecret }), 'UNKNOWN_CLIENT_ID', 400);
    await expectError(t.client.accountStub({ email: newEmail(), clientId, clientSecret: randomHex(32) }), 'INCORRECT_CLIENT_SECRET', 400);
    await expectError(t.client.accountStub({ email: newEmail(), clientId } as never), 'MISSING_PARAMETER', 400);
  });

  it('never takes over an address someone holds: confirmed (101) or a pending sign-up (101, which survives)', async () => {
    const email = newEmail();
    const s = await t.accounts.signUp(email, 'a real password', { verificationMethod: 'email-otp' });
    const pending = newEmail('pending');
    const p = await t.accounts.signUp(pending, 'a pending password');
    await t.client.sessionVerifyCode(s.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode')).code! });
    await expectError(t.client.accountStub({ email, clientId, clientSecret }), 'ACCOUNT_EXISTS', 400);
    await expectError(t.client.accountStub({ email: pending, clientId, clientSecret }), 'ACCOUNT_EXISTS', 400);
    expect(await t.client.accountStatus(undefined, { uid: p.uid })).toEqual({ exists: true });
    // And a stub's address cannot be signed up over.
    const stubEmail = newEmail('stub');
    await t.client.accountStub({ email: stubEmail, clientId, clientSecret });
    await expectError(t.accounts.signUp(stubEmail, 'password'), 'ACCOUNT_EXISTS', 400);
  });

  it('lets only a stub\'s own access token set its first password (110 for any other)', async () => {
    const stub = await t.client.accountStub({ email: newEmail('other'), clientId, clientSecret });
    const { oauth } = t.app.services;
    const other = await oauth.issueAccessToken(t.storage.db, {
      clientId: unlistedId, uid: stub.uid, scope: ['profile:write', 'https://identity.mozilla.com/account/subscriptions'], now: Date.now(), ttlMs: 60_000, profileChangedAt: 1,
    });
    await expectError(t.client.accountSetPassword(other, { authPW: randomHex(32) }), 'INVALID_TOKEN', 401);
  });

  it('lets only the client that created a stub set its first password: another stub client\'s token gets 110 (hole 10)', async () => {
    const stub = await t.client.accountStub({ email: newEmail('creator'), clientId, clientSecret });
    const { oauth } = t.app.services;
    const tokenOf = (id: string, uid: string) => oauth.issueAccessToken(t.storage.db, {
      clientId: id, uid, scope: ['profile:write', 'https://identity.mozilla.com/account/subscriptions'], now: Date.now(), ttlMs: 60_000, profileChangedAt: 1,
    });
    // A token for the same account and with the stub's scopes, of another allow-listed client.
    const refused = await expectError(t.client.accountSetPassword(await tokenOf(secondId, stub.uid), { authPW: randomHex(32) }), 'INVALID_TOKEN', 401);
    expect(refused.body.detail).toMatch(/client that created/);
    // An account that was signed up, not stubbed, takes no stub client's token either.
    const signedUp = await t.accounts.signUp(newEmail('signed'), 'a signed-up password');
    await expectError(t.client.accountSetPassword(await tokenOf(clientId, signedUp.uid), { authPW: randomHex(32) }), 'INVALID_TOKEN', 401);
    // The creator's own token still works: the refusals changed nothing.
    const set = await t.client.accountSetPassword(stub.access_token, { authPW: randomHex(32) }, { sendVerifyEmail: false });
    expect(set.uid).toBe(stub.uid);
  });

  it.runIf(browserAvailable() && dialect === 'sqlite')('finishes setup in a real browser from the emailed link', async () => {
    const email = newEmail('browser');
    const since = t.mail.messages.length;
    const stub = await t.client.accountStub({ email, clientId, clientSecret, wantsSetupToken: true });
    const mail = await t.mail.waitFor(email, 'finishSetup', since);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(mail.link!);
      await page.fill('#pw', 'chosen in the browser');
      await page.fill('#pw2', 'chosen in the browser');
      await page.click('#go');
      await page.waitForSelector('text=Your account is ready', { timeout: 20_000 });
    } finally {
      await browser.close();
    }
    const login = await t.accounts.signIn(email, 'chosen in the browser');
    expect(login.uid).toBe(stub.uid);
    expect((await t.client.accountCredentialsStatus({ email })).currentVersion).toBe('v2');
  });
});
