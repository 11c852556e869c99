import { describe, expect, it } from 'vitest';
import { bearerHeader, deriveTokenKeys } from '@tessera/protocol';
import { serverBeside, httpDialects, newEmail, type TestServer } from '../../harness.js';
import { expectError, hex, rawRequest } from '../../helpers.js';
import { PushService } from '../../push-service.js';
import { appFor, codeAt } from '../two-step/two-step-helpers.js';

// Issue 22, hole 3 and the device points around it: what a sign-in that proved only the password
// may do with the account's devices (list them without their push keys, register its own, as
// Firefox does right after signing in; never push to them or send them commands), the payloads
// /account/devices/notify relays, the bounds on commands, push callbacks stored normalised, and the
// incumbent's compatibility points of POST /account/device.

const OPEN_URI = 'https://identity.mozilla.com/cmd/open-uri';
const COLLECTION_CHANGED = { version: 1, command: 'sync:collection_changed', data: { collections: ['clients'], reason: 'firstsync' } };

describe.each(httpDialects())('devices and unconfirmed sessions (%s)', (dialect) => {
  let t: TestServer;
  const push = new PushService();
  // Sign-ins to addresses starting "confirm." always need confirmation. Three commands may wait
  // for one device; ten commands per account and client address per window.
  serverBeside([push], {
    dialect, manualClock: true,
    env: {
      SIGNIN_CONFIRMATION_FORCED_EMAIL_REGEX: '^confirm\\.',
      DEVICE_COMMANDS_PENDING_MAX: '3', RATE_LIMIT_RULES: 'invokeDeviceCommand : ip_uid : 10 : 15 minutes : 15 minutes : block',
    },
  }, (server) => (t = server));

  const auth = (token: string) => bearerHeader('sessionToken', deriveTokenKeys('sessionToken', token).tokenId);
  const post = (token: string, path: string, body: unknown) => rawRequest(t.url, 'POST', path, { body, authorization: auth(token) });

  /** A confirmed account whose confirmed session has a subscribed device, and a second sign-in that is not confirmed. */
  async function withUnconfirmedSignIn() {
    const email = newEmail('confirm');
    const password = 'devices and unconfirmed sessions';
    const since = t.mail.messages.length;
    const signedUp = await t.accounts.signUp(email, password, { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(signedUp.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    const sub = push.subscribe();
    const device = await t.client.accountDevice(signedUp.sessionToken, { name: 'Owner', pushCallback: sub.endpoint, ...sub.keys, availableCommands: { [OPEN_URI]: 'owner keys' } });
    const attacker = await t.accounts.signIn(email, password);
    expect((await t.client.sessionStatus(attacker.sessionToken)).state).toBe('unverified');
    await t.app.push.idle();
    return { email, password, owner: signedUp.sessionToken, device, sub, unconfirmed: attacker.sessionToken };
  }

  it('an unconfirmed sign-in lists the devices without their push endpoints and keys, and may register its own (Firefox)', async () => {
    const { owner, device, unconfirmed } = await withUnconfirmedSignIn();
    const listed = (await t.client.accountDevices(unconfirmed)).find((d) => d.id === device.id)!;
    expect(listed).toMatchObject({ name: 'Owner', pushCallback: null, pushPublicKey: null, pushAuthKey: null });
    // What Firefox does right after signing in: attached clients, devices, its own device with push.
    expect((await t.client.accountAttachedClients(unconfirmed)).length).toBe(2);
    const own = push.subscribe();
    const registered = await t.client.accountDevice(unconfirmed, { name: 'Firefox', type: 'desktop', pushCallback: own.endpoint, ...own.keys, availableCommands: {} });
    expect(registered).toMatchObject({ pushCallback: own.endpoint, ...own.keys });
    // Its own device keeps what it registered; the owner's confirmed session sees every key.
    const mine = (await t.client.accountDevices(unconfirmed)).find((d) => d.isCurrentDevice)!;
    expect(mine).toMatchObject({ id: registered.id, pushCallback: own.endpoint, ...own.keys });
    const ownerView = await t.client.accountDevices(owner);
    expect(ownerView.find((d) => d.id === device.id)).toMatchObject({ pushCallback: device.pushCallback, pushPublicKey: device.pushPublicKey });
    expect(ownerView.find((d) => d.id === registered.id)).toMatchObject({ pushCallback: own.endpoint });
  });

  it('an unconfirmed sign-in can neither push to the devices nor send them commands', async () => {
    const { device, sub, unconfirmed } = await withUnconfirmedSignIn();
    const before = push.pushesFor(sub).length;
    const forged = { version: 1, command: 'fxaccounts:account_destroyed', data: { uid: hex(32) } };
    await expectError(await post(unconfirmed, '/account/devices/notify', { to: 'all', payload: forged }), 'SESSION_UNVERIFIED');
    await expectError(await post(unconfirmed, '/account/devices/notify', { to: [device.id], payload: COLLECTION_CHANGED }), 'SESSION_UNVERIFIED');
    await expectError(await post(unconfirmed, '/account/devices/invoke_command', { target: device.id, command: OPEN_URI, payload: { x: 1 } }), 'SESSION_UNVERIFIED');
    await t.app.push.idle();
    expect(push.pushesFor(sub)).toHaveLength(before);
  });

  it('a session confirmed by email on an account with two-step authentication gets no push keys and cannot push (AAL2 needed)', async () => {
    const email = newEmail('aal');
    const password = 'aal one on a two-step account';
    const since = t.mail.messages.length;
    const first = await t.accounts.signUp(email, password, { verificationMethod: 'email-otp' });
    await t.client.sessionVerifyCode(first.sessionToken, { code: (await t.mail.waitFor(email, 'verifyShortCode', since)).code! });
    // A second session, confirmed (a new account needs no confirmation) before two-step is on: AAL1.
    const second = await t.accounts.signIn(email, password);
    expect((await t.client.sessionStatus(second.sessionToken)).state).toBe('verified');
    const { secret } = await t.client.totpCreate(first.sessionToken, {});
    expect((await t.client.totpSetupVerify(first.sessionToken, { code: codeAt(t, appFor(secret)) })).success).toBe(true);
    await t.client.totpSetupComplete(first.sessionToken, {});
    const sub = push.subscribe();
    const device = await t.client.accountDevice(first.sessionToken, { name: 'AAL2', pushCallback: sub.endpoint, ...sub.keys });

    expect((await t.client.accountDevices(second.sessionToken)).find((d) => d.id === device.id)).toMatchObject({ pushCallback: null, pushPublicKey: null, pushAuthKey: null });
    await expectError(await post(second.sessionToken, '/account/devices/notify', { to: 'all', payload: COLLECTION_CHANGED }), 'INSUFFICIENT_AAL');
    await expectError(await post(second.sessionToken, '/account/devices/invoke_command', { target: device.id, command: 'c', payload: {} }), 'INSUFFICIENT_AAL');
    // The AAL2 session itself pushes.
    expect((await post(first.sessionToken, '/account/devices/notify', { to: 'all', payload: COLLECTION_CHANGED })).status).toBe(200);
  });

  it('notify relays only the payload clients send (sync:collection_changed), never the server\'s own account events', async () => {
    const { owner, device, sub } = await withUnconfirmedSignIn();
    const other = push.subscribe();
    const [email, password] = await confirmedSecond(owner);
    const since = t.mail.messages.length;
    const second = (await t.accounts.signIn(email, password, { verificationMethod: 'email-otp' })).sessionToken;
    await t.client.sessionVerifyCode(second, { code: (await t.mail.waitFor(email, 'verifyLoginCode', since)).code! });
    const sender = await t.client.accountDevice(second, { name: 'Sender', pushCallback: other.endpoint, ...other.keys });
    await t.app.push.idle();
    const refused = [
      { version: 1, command: 'fxaccounts:account_destroyed', data: { uid: hex(32) } },
      { version: 1, command: 'fxaccounts:device_connected', data: { deviceName: 'Evil laptop' } },
      { version: 1, command: 'fxaccounts:password_reset' },
      { version: 1, command: 'fxaccounts:command_received', data: { command: OPEN_URI, index: 1, sender: null, url: 'https://evil.example/' } },
      { version: 1, command: 'fxaccounts:verify_login', data: { code: '123456', device: 'x', at: 1 } },
      { hello: 'anything' },
      { ...COLLECTION_CHANGED, data: { collections: ['clients'], reason: 'firstsync', extra: 'x' } },
      { ...COLLECTION_CHANGED, data: { collections: [] } },
      { ...COLLECTION_CHANGED, data: { collections: ['not-an-engine'] } },
      { ...COLLECTION_CHANGED, version: 2 },
    ];
    for (const payload of refused) {
      // Bad input (107, or 108 when the shape lacks a field the one allowed payload has).
      const reply = await post(second, '/account/devices/notify', { to: 'all', excluded: [sender.id], payload });
      expect(reply.status, JSON.stringify(payload)).toBe(400);
      expect([107, 108]).toContain(reply.body.errno);
    }
    await t.app.push.idle();
    const before = push.pushesFor(sub).length;
    // What Firefox sends after uploading its clients record.
    expect((await post(second, '/account/devices/notify', { to: 'all', excluded: [sender.id], payload: COLLECTION_CHANGED, TTL: 0 })).status).toBe(200);
    const sendTab = { version: 1, command: 'sync:collection_changed', data: { collections: ['clients'], reason: 'sendtab' } };
    expect((await post(second, '/account/devices/notify', { to: [device.id], payload: sendTab, TTL: 30 })).status).toBe(200);
    const withoutReason = { version: 1, command: 'sync:collection_changed', data: { collections: ['bookmarks', 'tabs'] } };
    expect((await post(second, '/account/devices/notify', { to: [device.id], payload: withoutReason })).status).toBe(200);
    await t.app.push.idle();
    // The queue sends concurrently: in any order.
    const received = push.pushesFor(sub).slice(before);
    expect(received).toHaveLength(3);
    expect(received).toEqual(expect.arrayContaining([COLLECTION_CHANGED, sendTab, withoutReason]));
  });

  /** The email and password of the account whose session is `owner`, for another sign-in. */
  async function confirmedSecond(owner: string): Promise<[string, string]> {
    const account = await t.client.account(owner);
    return [account.email, 'devices and unconfirmed sessions'];
  }

  it('commands wait at most DEVICE_COMMANDS_PENDING_MAX per device (429 until one expires) and are rate limited per account', async () => {
    const { owner, device } = await withUnconfirmedSignIn();
    // The owner's new sign-in needs confirmation (forced): confirmed by its emailed code.
    const [email, password] = await confirmedSecond(owner);
    const since = t.mail.messages.length;
    const second = (await t.accounts.signIn(email, password, { verificationMethod: 'email-otp' })).sessionToken;
    await t.client.sessionVerifyCode(second, { code: (await t.mail.waitFor(email, 'verifyLoginCode', since)).code! });
    const invoke = (ttl: number) => post(second, '/account/devices/invoke_command', { target: device.id, command: OPEN_URI, payload: { tab: 1 }, ttl });
    for (const ttl of [60_000, 120_000, 120_000]) expect((await invoke(ttl)).status).toBe(200);
    const full = await invoke(60_000);
    expectError(full, 'THROTTLED', 429);
    expect(full.body.retryAfter).toBe(60);
    expect((await t.client.accountDeviceCommands(owner)).messages).toHaveLength(3);
    // The first expires: one more may wait.
    t.clock!.advance(60_000);
    expect((await invoke(60_000)).status).toBe(200);
    expectError(await invoke(60_000), 'THROTTLED', 429);
    // Six requests so far (those the cap refused count too); the rule allows ten per window.
    t.clock!.advance(120_000);
    for (let i = 0; i < 3; i++) expect((await invoke(1000)).status).toBe(200);
    t.clock!.advance(1000);
    expect((await invoke(1000)).status).toBe(200);
    // The eleventh request of the window.
    const limited = await invoke(1000);
    expectError(limited, 'THROTTLED', 429);
    expect(limited.body.retryAfter).toBeGreaterThan(60);
  });

  it('commands sent at once never take more places than DEVICE_COMMANDS_PENDING_MAX', async () => {
    const { owner, device } = await withUnconfirmedSignIn();
    const [email, password] = await confirmedSecond(owner);
    const since = t.mail.messages.length;
    const second = (await t.accounts.signIn(email, password, { verificationMethod: 'email-otp' })).sessionToken;
    await t.client.sessionVerifyCode(second, { code: (await t.mail.waitFor(email, 'verifyLoginCode', since)).code! });
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      post(second, '/account/devices/invoke_command', { target: device.id, command: OPEN_URI, payload: { tab: i }, ttl: 60_000 })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
    expect((await t.client.accountDeviceCommands(owner)).messages).toHaveLength(3);
  });

  it('a command goes only to a device whose session is confirmed', async () => {
    const { owner, unconfirmed } = await withUnconfirmedSignIn();
    const squatter = await t.client.accountDevice(unconfirmed, { name: 'Not yet confirmed', availableCommands: { [OPEN_URI]: 'attacker keys' } });
    await expectError(t.client.accountDevicesInvokeCommand(owner, { target: squatter.id, command: OPEN_URI, payload: { tab: 'secret' } }), 'DEVICE_COMMAND_UNAVAILABLE');
    expect((await t.client.accountDeviceCommands(unconfirmed)).messages).toEqual([]);
  });

  it('stores push callbacks normalised: one URL, parsed one way, checked and used alike', async () => {
    const { owner, device } = await withUnconfirmedSignIn();
    const base = new URL(push.origin);
    const cases: [string, string][] = [
      [`https:///${base.host}/wpush/slashes`, `${push.origin}/wpush/slashes`],
      [`https://%31%32%37.0.0.1:${base.port}/wpush/percent`, `${push.origin}/wpush/percent`],
      [`https://${base.host}/wpush/./dots/../up`, `${push.origin}/wpush/up`],
      [`https://${base.host}/wpush/space here`, `${push.origin}/wpush/space%20here`],
    ];
    for (const [sent, stored] of cases) {
      const reply = await post(owner, '/account/device', { id: device.id, pushCallback: sent });
      expect(reply.status, sent).toBe(200);
      expect(reply.body.pushCallback).toBe(stored);
      expect((await t.client.accountDevices(owner)).find((d) => d.id === device.id)?.pushCallback).toBe(stored);
    }
    // Forms that name another host once parsed stay refused.
    for (const sent of [`https:///evil.example/x`, `https://%65vil.example/x`, `https://${base.host}@evil.example/x`]) {
      expectError(await post(owner, '/account/device', { id: device.id, pushCallback: sent }), 'INVALID_PARAMETER');
    }
  });

  describe('POST /account/device as the incumbent\'s clients use it', () => {
    it('an unknown device id is 123 before the body is checked', async () => {
      const { owner } = await withUnconfirmedSignIn();
      expectError(await post(owner, '/account/device', { id: hex(32), name: 'x', pushCallback: 'https://evil.example/not-allowed' }), 'DEVICE_UNKNOWN');
      expectError(await post(owner, '/account/device', { id: hex(32), name: 'tab\there' }), 'DEVICE_UNKNOWN');
      // A session without a device naming one: 123 too; its own device with a bad body: 107.
      const { unconfirmed } = await withUnconfirmedSignIn();
      expectError(await post(unconfirmed, '/account/device', { id: hex(32), pushCallback: 'https://evil.example/' }), 'DEVICE_UNKNOWN');
      const own = (await t.client.accountDevices(owner)).find((d) => d.isCurrentDevice)!;
      expectError(await post(owner, '/account/device', { id: own.id, pushCallback: 'https://evil.example/' }), 'INVALID_PARAMETER');
      // A malformed id is still 107.
      expectError(await post(owner, '/account/device', { id: 'zz', name: 'x' }), 'INVALID_PARAMETER');
    });

    it('accepts and ignores the deprecated capabilities field', async () => {
      const { unconfirmed } = await withUnconfirmedSignIn();
      const reply = await post(unconfirmed, '/account/device', { name: 'Old client', capabilities: ['messages'] });
      expect(reply.status).toBe(200);
      expect(reply.body).not.toHaveProperty('capabilities');
      const again = await post(unconfirmed, '/account/device', { id: reply.body.id, name: 'Old client 2', capabilities: [] });
      expect(again.status).toBe(200);
      expect(again.body.name).toBe('Old client 2');
    });

    it('a device registered without a name reads back null', async () => {
      const { unconfirmed } = await withUnconfirmedSignIn();
      const sub = push.subscribe();
      const reply = await post(unconfirmed, '/account/device', { type: 'mobile', pushCallback: sub.endpoint, ...sub.keys });
      expect(reply.status).toBe(200);
      expect(reply.body.name).toBeNull();
      expect((await t.client.accountDevices(unconfirmed)).find((d) => d.isCurrentDevice)?.name).toBeNull();
      const listed = await rawRequest(t.url, 'GET', '/account/devices', { authorization: auth(unconfirmed) });
      expect((listed.body as unknown as { isCurrentDevice: boolean; name: unknown }[]).find((d) => d.isCurrentDevice)?.name).toBeNull();
      // An empty name is no name, at registration and in an update.
      const { unconfirmed: other } = await withUnconfirmedSignIn();
      const empty = await post(other, '/account/device', { name: '', type: 'desktop' });
      expect(empty.body.name).toBeNull();
      expect((await post(other, '/account/device', { id: empty.body.id, name: 'Named' })).body.name).toBe('Named');
      expect((await post(other, '/account/device', { id: empty.body.id, name: '' })).body.name).toBeNull();
      expect((await t.client.accountAttachedClients(other)).find((c) => c.isCurrentSession)?.name).not.toBe('');
    });
  });
});
