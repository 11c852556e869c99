import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptRecoveryData, generateRecoveryKey, randomHex, recoveryKeyId } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { expectMfaGuarded, mfaToken } from '../../mfa-helpers.js';

// The /mfa variants of the secondary-email and recovery-key routes (protocol.md §5.1): the same
// route with an MFA token scoped mfa:email or mfa:recovery_key instead of a confirmed session.
// Each refuses every token it must not take, and does its work with the right one.

describe.each(httpDialects())('/mfa variants of existing routes (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true, env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
  });
  afterAll(async () => t?.close());

  const someone = () => newEmail('mfa-variant');

  it.each([
    ['/mfa/recovery_email', { email: 'a@example.com' }],
    ['/mfa/recovery_email/destroy', { email: 'a@example.com' }],
    ['/mfa/recovery_email/set_primary', { email: 'a@example.com' }],
    ['/mfa/recovery_email/secondary/resend_code', { email: 'a@example.com' }],
    ['/mfa/recovery_email/secondary/verify_code', { email: 'a@example.com', code: '123456' }],
  ])('POST %s needs a token scoped mfa:email', async (path, body) => {
    await expectMfaGuarded(t, { method: 'POST', path, body }, 'email');
  });

  it('POST /mfa/recoveryKey and DELETE /mfa/recoveryKey need a token scoped mfa:recovery_key', async () => {
    const key = generateRecoveryKey();
    const body = { recoveryKeyId: randomHex(16), recoveryData: await encryptRecoveryData(key, randomHex(16), { kB: randomHex(32) }) };
    await expectMfaGuarded(t, { method: 'POST', path: '/mfa/recoveryKey', body }, 'recovery_key');
    await expectMfaGuarded(t, { method: 'DELETE', path: '/mfa/recoveryKey' }, 'recovery_key');
  });

  it('adds, confirms, promotes and removes a secondary address with an mfa:email token', async () => {
    const acct = await verifiedAccount(t);
    const token = await mfaToken(t, acct, 'email');
    const second = someone();

    let since = t.mail.messages.length;
    expect(await t.client.mfaRecoveryEmailCreate(token, { email: second })).toEqual({});
    await t.mail.waitFor(second, 'verifySecondaryCode', since);
    since = t.mail.messages.length;
    await t.client.mfaRecoveryEmailSecondaryResendCode(token, { email: second });
    const code = (await t.mail.waitFor(second, 'verifySecondaryCode', since)).code!;
    await t.client.mfaRecoveryEmailSecondaryVerifyCode(token, { email: second, code });
    expect(await t.client.recoveryEmails(acct.sessionToken)).toEqual([
      { email: acct.email, verified: true, isPrimary: true },
      { email: second, verified: true, isPrimary: false },
    ]);

    await t.client.mfaRecoveryEmailSetPrimary(token, { email: second });
    expect((await t.client.recoveryEmails(acct.sessionToken))[0]).toEqual({ email: second, verified: true, isPrimary: true });
    // The same rules as the session route: the primary cannot be removed.
    await expectError(t.client.mfaRecoveryEmailDestroy(token, { email: second }), 'EMAIL_DELETE_PRIMARY', 400);
    await t.client.mfaRecoveryEmailDestroy(token, { email: acct.email });
    expect(await t.client.recoveryEmails(acct.sessionToken)).toEqual([{ email: second, verified: true, isPrimary: true }]);
  });

  it('a token scoped mfa:email is refused by the recovery-key routes, and one of another account acts only on its own', async () => {
    const alice = await verifiedAccount(t);
    const bob = await verifiedAccount(t);
    const aliceEmail = await mfaToken(t, alice, 'email');
    await expectError(t.client.mfaRecoveryKeyDelete(aliceEmail), 'INVALID_MFA_TOKEN', 401);
    // Alice's token adds to Alice's account, whoever's session asks nothing.
    const address = someone();
    await t.client.mfaRecoveryEmailCreate(aliceEmail, { email: address });
    expect((await t.client.recoveryEmails(alice.sessionToken)).map((e) => e.email)).toContain(address);
    expect((await t.client.recoveryEmails(bob.sessionToken)).map((e) => e.email)).not.toContain(address);
  });

  it('stores and removes a recovery key with an mfa:recovery_key token', async () => {
    const acct = await verifiedAccount(t);
    const token = await mfaToken(t, acct, 'recovery_key');
    const key = generateRecoveryKey();
    const body = { recoveryKeyId: recoveryKeyId(key, acct.uid), recoveryData: await encryptRecoveryData(key, acct.uid, { kB: randomHex(32) }) };

    let since = t.mail.messages.length;
    expect(await t.client.mfaRecoveryKeyCreate(token, body)).toEqual({});
    await t.mail.waitFor(acct.email, 'recoveryKeyCreated', since);
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toMatchObject({ exists: true });
    // One key per account: a second needs replaceKey, as on the session route.
    await expectError(t.client.mfaRecoveryKeyCreate(token, body), 'RECOVERY_KEY_EXISTS', 400);

    since = t.mail.messages.length;
    expect(await t.client.mfaRecoveryKeyDelete(token)).toEqual({});
    await t.mail.waitFor(acct.email, 'recoveryKeyRemoved', since);
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toMatchObject({ exists: false });
  });
});
