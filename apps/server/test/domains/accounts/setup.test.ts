import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { insertClient } from '../../../src/domains/oauth/store.js';
import { createTestServer, httpDialects, newEmail, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

describe.each(httpDialects())('stub accounts and account setup (%s)', (dialect) => {
  let t: TestServer;
  const clientId = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer({ dialect });
    await insertClient(t.storage.db, {
      id: clientId, name: 'Checkout', imageUri: '', redirectUri: 'https://shop.example/callback', hashedSecret: null,
      trusted: true, publicClient: false, canGrant: false, allowedScopes: ['profile'], createdAt: Date.now(),
    });
  });
  afterAll(async () => t?.close());

  it('creates a stub, sets its password with the access token, and confirms by code', async () => {
    const email = newEmail('stub');
    const stub = await t.client.accountStub({ email, clientId });
    expect(stub.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(stub.setup_token).toBeUndefined();
    // No password yet: sign-in is refused with 210, the profile is readable with the token.
    await expectError(t.client.accountLogin({ email, authPW: 'a'.repeat(64) }), 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 400);
    const profile = await t.client.accountProfile({ accessToken: stub.access_token });
    expect(profile.email).toBeUndefined(); // the stub token's scopes do not include profile:email
    expect(profile.profileChangedAt).toBeGreaterThan(0);

    const { stretchV1 } = await import('@tessera/protocol');
    const creds = await stretchV1(email, 'stub password');
    const set = await t.client.accountSetPassword(stub.access_token, { authPW: creds.authPW });
    expect(set.uid).toBe(stub.uid);
    const code = (await t.mail.waitFor(email, 'verifyShortCode')).code!;
    await t.client.sessionVerifyCode(set.sessionToken, { code });
    expect((await t.client.sessionStatus(set.sessionToken)).state).toBe('verified');
    await expectError(t.client.accountSetPassword(stub.access_token, { authPW: creds.authPW }), 'CANNOT_CREATE_PASSWORD', 400);
    expect((await t.client.accountLogin({ email, authPW: creds.authPW })).uid).toBe(stub.uid);
  });

  it('finishes setup with the emailed setup token, once', async () => {
    const email = newEmail('setup');
    const stub = await t.client.accountStub({ email, clientId, wantsSetupToken: true });
    expect(stub.setup_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const { stretchV1 } = await import('@tessera/protocol');
    const creds = await stretchV1(email, 'setup password');
    const done = await t.client.accountFinishSetup({ token: stub.setup_token!, authPW: creds.authPW });
    expect(done).toMatchObject({ uid: stub.uid, verified: true });
    expect(await t.client.recoveryEmailStatus(done.sessionToken)).toMatchObject({ verified: true, emailVerified: true });
    const again = await expectError(t.client.accountFinishSetup({ token: stub.setup_token!, authPW: creds.authPW }), 'INVALID_TOKEN', 401);
    expect(again.body.detail).toMatch(/already used/);
    const forged = stub.setup_token!.slice(0, -4) + (stub.setup_token!.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expectError(t.client.accountFinishSetup({ token: forged, authPW: creds.authPW }), 'INVALID_TOKEN', 401);
  });

  it('refuses unknown clients (162) and addresses of confirmed accounts (101)', async () => {
    await expectError(t.client.accountStub({ email: newEmail(), clientId: 'ffffffffffffffff' }), 'UNKNOWN_CLIENT_ID', 400);
    const email = newEmail();
    const s = await t.accounts.signUp(email, 'a real password', { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(s.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode')).code! });
    await expectError(t.client.accountStub({ email, clientId }), 'ACCOUNT_EXISTS', 400);
    // And a stub's address cannot be signed up over.
    const stubEmail = newEmail('stub');
    await t.client.accountStub({ email: stubEmail, clientId });
    await expectError(t.accounts.signUp(stubEmail, 'password'), 'ACCOUNT_EXISTS', 400);
  });
});
