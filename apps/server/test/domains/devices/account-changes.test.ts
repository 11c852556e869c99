import { describe, expect, it } from 'vitest';
import { serverBeside, httpDialects, newEmail, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { PushService, type Subscriber } from '../../push-service.js';

// Account changes pushed to the account's devices (issue 11): a confirmed address or sign-in is a
// push without payload (the devices re-check their state); a profile change is an encrypted
// `fxaccounts:profile_updated`, which the local push service decrypts with the device's key.

describe.each(httpDialects())('account changes pushed to devices (%s)', (dialect) => {
  let t: TestServer;
  const push = new PushService();
  // Sign-ins to addresses starting "confirm." always need confirmation.
  serverBeside([push], { dialect, env: { SIGNIN_CONFIRMATION_FORCED_EMAIL_REGEX: '^confirm\\.' } }, (server) => (t = server));

  const PASSWORD = 'account changes password';
  const received = (s: Subscriber) => push.received.filter((r) => r.path === new URL(s.endpoint).pathname);

  /** A device subscribed to the local push service, registered on `session`. */
  async function device(session: string, name: string) {
    const sub = push.subscribe();
    await t.client.accountDevice(session, { name, pushCallback: sub.endpoint, ...sub.keys });
    return sub;
  }

  it('confirming the address at sign-up pushes a state change without payload, once', async () => {
    const email = newEmail('confirm');
    const since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, PASSWORD, { verificationMethod: 'email-otp' });
    // A relying party registers its device before the address is confirmed, and waits for the push.
    const sub = await device(signedUp.sessionToken, 'new');
    await t.app.push.idle();
    expect(received(sub)).toEqual([]);
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    await t.app.push.idle();
    const [pushed, ...more] = received(sub);
    expect(more).toEqual([]);
    expect(pushed!.body).toHaveLength(0);
    expect(pushed!.headers['content-encoding']).toBeUndefined();
    expect(pushed!.headers.ttl).toBe('86400');
    expect(push.pushesFor(sub)).toEqual([null]);
  });

  it('confirming a sign-in, by code or by link, pushes a state change to every device of the account', async () => {
    const email = newEmail('confirm');
    let since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, PASSWORD, { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    const subA = await device(signedUp.sessionToken, 'A');

    since = t.mail.messages.length;
    const byCode = await t.accounts.signIn(email, PASSWORD, { verificationMethod: 'email-otp' });
    const subB = await device(byCode.sessionToken, 'B');
    await t.app.push.idle();
    const before = received(subA).length;
    await t.client.sessionVerifyCode(byCode.sessionToken, { code: (await t.mail.waitFor(email, 'verifyLoginCode', since)).code! });
    await t.app.push.idle();
    expect(push.pushesFor(subA).slice(before)).toEqual([null]);
    expect(push.pushesFor(subB)).toEqual([null]);

    since = t.mail.messages.length;
    const byLink = await t.accounts.signIn(email, PASSWORD);
    await t.client.recoveryEmailVerifyCode({ uid: byLink.uid, code: (await t.mail.waitFor(email, 'verifyLogin', since)).code! });
    await t.app.push.idle();
    expect(push.pushesFor(subA).slice(before)).toEqual([null, null]);
    expect(push.pushesFor(subB)).toEqual([null, null]);
    // A code that confirms nothing changes nothing, and pushes nothing.
    await expectError(t.client.recoveryEmailVerifyCode({ uid: byLink.uid, code: 'f'.repeat(32) }), 'INVALID_VERIFICATION_CODE');
    await t.app.push.idle();
    expect(push.pushesFor(subB)).toEqual([null, null]);
  });

  it('a profile change reported through the account lifecycle pushes fxaccounts:profile_updated, encrypted to each device', async () => {
    const email = newEmail();
    const since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, PASSWORD, { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    const second = await t.accounts.signIn(email, PASSWORD);
    const subA = await device(signedUp.sessionToken, 'A');
    const subB = await device(second.sessionToken, 'B');
    await t.app.push.idle();
    const before = push.pushesFor(subA).length;
    // How a later domain (secondary emails, two-step) reports a change, inside its transaction.
    await t.storage.db.transaction().execute((trx) => t.app.services.records.accountChanged(trx, signedUp.uid, 'profile'));
    await t.app.push.idle();
    expect(push.pushesFor(subA).slice(before)).toEqual([{ version: 1, command: 'fxaccounts:profile_updated' }]);
    expect(push.pushesFor(subB).at(-1)).toEqual({ version: 1, command: 'fxaccounts:profile_updated' });
    expect(received(subB).at(-1)!.headers['content-encoding']).toBe('aes128gcm');
  });
});
