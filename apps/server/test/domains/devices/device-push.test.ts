import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpDialects, newEmail, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { checkVapid, type PushService } from '../../push-service.js';
import { hexId, startDevicesServer, twoSessions as signedInTwice } from './devices-server.js';

// Web Push and device commands through HTTP with the SDK (issue 11). Pushes go to a local push
// service that decrypts each one with the receiving device's private key.

describe.each(httpDialects())('device pushes and commands (%s)', (dialect) => {
  let t: TestServer;
  let push: PushService;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ t, push, close } = await startDevicesServer(dialect));
  });
  afterAll(async () => close?.());
  const twoSessions = () => signedInTwice(t);

  it('pushes device connected and disconnected to the other devices, encrypted to each one\'s keys', async () => {
    const { a, b } = await twoSessions();
    const subA = push.subscribe();
    const da = await t.client.accountDevice(a, { name: 'A', pushCallback: subA.endpoint, ...subA.keys });
    const subB = push.subscribe();
    await t.client.accountDevice(b, { name: 'B 🦊', pushCallback: subB.endpoint, ...subB.keys });
    await t.app.push.idle();
    expect(push.pushesFor(subA)).toEqual([{ version: 1, command: 'fxaccounts:device_connected', data: { deviceName: 'B 🦊' } }]);
    expect(push.pushesFor(subB)).toEqual([]);
    const sent = push.received.find((r) => r.path === new URL(subA.endpoint).pathname)!;
    expect(sent.headers['content-encoding']).toBe('aes128gcm');
    expect(sent.headers.ttl).toBe('86400');
    checkVapid(sent.headers.authorization as string, push.origin, Date.now() / 1000);

    await t.client.accountDeviceDestroy(b, { id: da.id });
    await t.app.push.idle();
    expect(push.pushesFor(subB)).toEqual([{ version: 1, command: 'fxaccounts:device_disconnected', data: { id: da.id } }]);
    expect(push.pushesFor(subA)).toHaveLength(1);
  });

  it('a 410 from the push service marks the endpoint expired, and a new push tuple clears it', async () => {
    const { acct, a, b } = await twoSessions();
    const subA = push.subscribe();
    const da = await t.client.accountDevice(a, { name: 'A', pushCallback: subA.endpoint, ...subA.keys });
    push.behaviour.set(new URL(subA.endpoint).pathname, { status: 410 });
    await t.client.accountDevice(b, { name: 'B' });
    await t.app.push.idle();
    expect((await t.client.accountDevices(a)).find((d) => d.id === da.id)?.pushEndpointExpired).toBe(true);
    // An expired endpoint is not pushed to again.
    const c = (await t.accounts.signIn(acct.email, acct.password)).sessionToken;
    await t.client.accountDevice(c, { name: 'C' });
    await t.app.push.idle();
    expect(push.received.filter((r) => r.path === new URL(subA.endpoint).pathname)).toHaveLength(1);
    // The same tuple again leaves it expired; a new subscription clears it.
    expect((await t.client.accountDevice(a, { id: da.id, pushCallback: subA.endpoint, ...subA.keys })).pushEndpointExpired).toBe(true);
    const fresh = push.subscribe();
    expect((await t.client.accountDevice(a, { id: da.id, pushCallback: fresh.endpoint, ...fresh.keys })).pushEndpointExpired).toBe(false);
  });

  it('pushes password changed to the devices it signs out, and account destroyed to the rest', async () => {
    const { acct, a, b } = await twoSessions();
    const subA = push.subscribe();
    await t.client.accountDevice(a, { name: 'A', pushCallback: subA.endpoint, ...subA.keys });
    const subB = push.subscribe();
    await t.client.accountDevice(b, { name: 'B', pushCallback: subB.endpoint, ...subB.keys });
    await t.app.push.idle();
    const changed = await t.accounts.changePassword(b, acct.email, acct.password, 'another password');
    await t.app.push.idle();
    expect(push.pushesFor(subA).at(-1)).toEqual({ version: 1, command: 'fxaccounts:password_changed' });
    expect(push.pushesFor(subB)).toEqual([]);
    const creds = await t.accounts.credentialsFor(acct.email, 'another password');
    await t.client.accountDestroy(changed.sessionToken!, { email: acct.email, authPW: creds.authPW });
    await t.app.push.idle();
    expect(push.pushesFor(subB)).toEqual([{ version: 1, command: 'fxaccounts:account_destroyed', data: { uid: acct.uid } }]);
  });

  it('a slow push service never slows the request that caused the push', async () => {
    const { a, b } = await twoSessions();
    const subA = push.subscribe();
    await t.client.accountDevice(a, { name: 'A', pushCallback: subA.endpoint, ...subA.keys });
    push.behaviour.set(new URL(subA.endpoint).pathname, { delayMs: 1500 });
    const started = performance.now();
    await t.client.accountDevice(b, { name: 'B' });
    expect(performance.now() - started).toBeLessThan(1000);
    await t.app.push.idle();
    expect(push.pushesFor(subA)).toHaveLength(1);
  });

  /** Two sessions with a device each, both subscribed to the local push service. */
  async function twoDevices(commands: Record<string, string> = {}) {
    const { acct, a, b } = await twoSessions();
    const subA = push.subscribe();
    const da = await t.client.accountDevice(a, { name: 'A', pushCallback: subA.endpoint, ...subA.keys, availableCommands: commands });
    const subB = push.subscribe();
    const db = await t.client.accountDevice(b, { name: 'B', pushCallback: subB.endpoint, ...subB.keys });
    await t.app.push.idle();
    return { acct, a, b, da, db, subA, subB };
  }

  it('invokes a command on one device and reads it on the other', async () => {
    const OPEN = 'https://identity.mozilla.com/cmd/open-uri';
    const { a, b, da, db, subA } = await twoDevices({ [OPEN]: 'a-public-keys' });
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: OPEN, payload: { encrypted: 'tab' }, ttl: 60_000 });
    await t.app.push.idle();
    const pushed = push.pushesFor(subA).at(-1) as { command: string; data: { index: number; command: string; sender: string; url: string } };
    expect(pushed).toMatchObject({ version: 1, command: 'fxaccounts:command_received', data: { command: OPEN, sender: db.id } });
    expect(pushed.data.url).toBe(`${t.url}/v1/account/device/commands?index=${pushed.data.index}&limit=1`);
    expect(push.received.at(-1)!.headers.ttl).toBe('60');

    const page = await t.client.accountDeviceCommands(a);
    expect(page).toEqual({ index: pushed.data.index, last: true, messages: [{ index: pushed.data.index, data: { command: OPEN, payload: { encrypted: 'tab' }, sender: db.id } }] });
    expect(await t.client.accountDeviceCommands(a, { index: pushed.data.index + 1 })).toEqual({ index: pushed.data.index + 1, last: true, messages: [] });
    // Paging: limit 1 of two waiting says more are left; limit 0 returns none.
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: OPEN, payload: { n: 2 } });
    const first = await t.client.accountDeviceCommands(a, { index: pushed.data.index, limit: 1 });
    expect([first.messages.length, first.last]).toEqual([1, false]);
    expect((await t.client.accountDeviceCommands(a, { index: first.index + 1, limit: 1 })).messages[0]?.data.payload).toEqual({ n: 2 });
    expect((await t.client.accountDeviceCommands(a, { limit: 0 })).messages).toEqual([]);
    // B has no commands, and a session without a device has no list.
    expect((await t.client.accountDeviceCommands(b)).messages).toEqual([]);
    const { a: bare } = await twoSessions();
    await expectError(t.client.accountDeviceCommands(bare), 'DEVICE_UNKNOWN');
  });

  it('refuses commands the target does not list, and enforces target, payload, ttl and limit edges', async () => {
    const { a, b, da } = await twoDevices({ c: 'd' });
    await expectError(t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'other', payload: {} }), 'DEVICE_COMMAND_UNAVAILABLE');
    await expectError(t.client.accountDevicesInvokeCommand(b, { target: hexId(), command: 'c', payload: {} }), 'DEVICE_UNKNOWN');
    await expectError(t.client.accountDevicesInvokeCommand(b, { target: da.id.slice(1), command: 'c', payload: {} }), 'INVALID_PARAMETER');
    // payload: 2048 characters as JSON ({"p":"…"} is 8 more than the string).
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: { p: 'x'.repeat(2040) } });
    await expectError(t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: { p: 'x'.repeat(2041) } }), 'INVALID_PARAMETER');
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: {}, ttl: 10_000_000 });
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: {}, ttl: 0 });
    await expectError(t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: {}, ttl: 10_000_001 }), 'INVALID_PARAMETER');
    await expectError(t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: {}, ttl: -1 }), 'INVALID_PARAMETER');
    await t.client.accountDeviceCommands(a, { limit: 100 });
    await expectError(t.client.accountDeviceCommands(a, { limit: 101 }), 'INVALID_PARAMETER');
    // The ttl-0 command was never deliverable; the other two are.
    expect((await t.client.accountDeviceCommands(a)).messages).toHaveLength(2);
  });

  it('never delivers a command past its ttl (moved clock)', async () => {
    const { a, b, da } = await twoDevices({ c: 'd' });
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: { short: true }, ttl: 1000 });
    await t.client.accountDevicesInvokeCommand(b, { target: da.id, command: 'c', payload: { long: true }, ttl: 5000 });
    t.clock!.advance(999);
    expect((await t.client.accountDeviceCommands(a)).messages.map((m) => m.data.payload)).toEqual([{ short: true }, { long: true }]);
    t.clock!.advance(1);
    expect((await t.client.accountDeviceCommands(a)).messages.map((m) => m.data.payload)).toEqual([{ long: true }]);
    t.clock!.advance(4000);
    expect((await t.client.accountDeviceCommands(a)).messages).toEqual([]);
  });

  it('notify pushes to the named devices, or to all but the excluded', async () => {
    const { a, b, da, db, subA, subB } = await twoDevices();
    // The payload clients send each other (issue 22: nothing else is relayed).
    type Payload = Parameters<TestServer['client']['accountDevicesNotify']>[1]['payload'];
    const changed = (collections: string[], reason?: string) => ({ version: 1, command: 'sync:collection_changed', data: { collections, ...(reason ? { reason } : {}) } }) as Payload;
    await t.client.accountDevicesNotify(b, { to: [da.id], payload: changed(['clients'], 'sendtab') });
    await t.app.push.idle();
    expect(push.pushesFor(subA).at(-1)).toEqual(changed(['clients'], 'sendtab'));
    expect(push.received.at(-1)!.headers.ttl).toBe('0');
    await t.client.accountDevicesNotify(a, { to: 'all', excluded: [da.id], payload: changed(['clients'], 'firstsync'), TTL: 30 });
    await t.app.push.idle();
    expect(push.pushesFor(subB)).toEqual([changed(['clients'], 'firstsync')]);
    expect(push.pushesFor(subA)).toEqual([{ version: 1, command: 'fxaccounts:device_connected', data: { deviceName: 'B' } }, changed(['clients'], 'sendtab')]);
    expect(push.received.at(-1)!.headers.ttl).toBe('30');
    await expectError(t.client.accountDevicesNotify(a, { to: [db.id], excluded: [da.id], payload: changed(['clients']) }), 'INVALID_PARAMETER');
    await expectError(t.client.accountDevicesNotify(a, { to: 'all', payload: changed(['clients']), TTL: -1 }), 'INVALID_PARAMETER');
    await expectError(t.client.accountDevicesNotify(a, { to: 'all', payload: changed(['clients', 'clients']) }), 'INVALID_PARAMETER');
    await expectError(t.client.accountDevicesNotify(a, { to: 'all', payload: changed(['clients'], 'x'.repeat(33)) }), 'INVALID_PARAMETER');
    await t.client.accountDevicesNotify(a, { to: 'all', payload: changed(['addons', 'addresses', 'bookmarks', 'clients', 'creditcards', 'forms', 'history', 'passwords', 'prefs', 'tabs'], 'x'.repeat(32)) });
  });

  it('confirms a new sign-in with the code pushed to an already-confirmed device', async () => {
    const email = newEmail('confirm');
    const since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, 'push confirm password', { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    const subA = push.subscribe();
    await t.client.accountDevice(signedUp.sessionToken, { name: 'A', pushCallback: subA.endpoint, ...subA.keys });
    // A confirmed session has nothing to confirm.
    expect(await t.client.sessionVerifySendPush(signedUp.sessionToken)).toEqual({ sent: 0 });

    const fresh = await t.accounts.signIn(email, 'push confirm password');
    expect((await t.client.sessionStatus(fresh.sessionToken)).state).toBe('unverified');
    expect(await t.client.sessionVerifySendPush(fresh.sessionToken)).toEqual({ sent: 1 });
    await t.app.push.idle();
    const pushed = push.pushesFor(subA).at(-1) as { command: string; data: { code: string; device: string } };
    expect(pushed.command).toBe('fxaccounts:verify_login');
    expect(pushed.data.code).toMatch(/^[0-9]{6}$/);
    expect(push.received.at(-1)!.headers.ttl).toBe(String(t.config.signin.codeLifetimeSeconds));
    const wrong = pushed.data.code === '000000' ? '000001' : '000000';
    await expectError(t.client.sessionVerifyVerifyPush(fresh.sessionToken, { code: wrong }), 'INVALID_EXPIRED_OTP_CODE');
    await expectError(t.client.sessionVerifyVerifyPush(fresh.sessionToken, { code: '12345' }), 'INVALID_PARAMETER');
    await t.client.sessionVerifyVerifyPush(fresh.sessionToken, { code: pushed.data.code });
    expect((await t.client.sessionStatus(fresh.sessionToken)).state).toBe('verified');
  });
});
