import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeader, deriveTokenKeys } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';
import { checkVapid, PushService } from '../../push-service.js';

// Devices, attached clients and Web Push through HTTP with the SDK (issue 11). Pushes go to a local
// push service that decrypts each one with the receiving device's private key.

/** A Web Push subscription's keys as a browser makes them (RFC 8291 §3). */
function subscriptionKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { pushPublicKey: ecdh.getPublicKey().toString('base64url'), pushAuthKey: randomBytes(16).toString('base64url') };
}

describe.each(httpDialects())('devices (%s)', (dialect) => {
  let t: TestServer;
  let push: PushService;
  let PUSH: string;
  beforeAll(async () => {
    push = new PushService();
    PUSH = `${await push.start()}/wpush/`;
    // Time moves by hand: idle expiry is tested by moving it. The local push service is allowed and
    // trusted by configuration, as an operator's private push service would be.
    // Sign-ins to addresses starting "confirm." always need confirmation.
    t = await createTestServer({
      dialect, manualClock: true,
      env: { PUSH_ALLOWED_HOSTS: push.host, PUSH_CA_FILE: push.caFile, SIGNIN_CONFIRMATION_FORCED_EMAIL_REGEX: '^confirm\\.' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await push?.stop();
  });

  /** A confirmed account signed in twice: two sessions. */
  async function twoSessions() {
    const acct = await verifiedAccount(t);
    const second = await t.accounts.signIn(acct.email, acct.password);
    return { acct, a: acct.sessionToken, b: second.sessionToken };
  }

  it('registers two devices on two sessions; each sees both, itself as current', async () => {
    const { a, b } = await twoSessions();
    const keys = subscriptionKeys();
    const da = await t.client.accountDevice(a, { name: 'Laptop 🦊', type: 'desktop', pushCallback: `${PUSH}aaa`, ...keys, availableCommands: { 'https://identity.mozilla.com/cmd/open-uri': 'keys-a' } });
    expect(da.id).toMatch(/^[0-9a-f]{32}$/);
    expect(da).toMatchObject({ name: 'Laptop 🦊', type: 'desktop', pushCallback: `${PUSH}aaa`, ...keys, pushEndpointExpired: false });
    const db = await t.client.accountDevice(b, { name: 'Phone', type: 'mobile' });
    expect(db).toMatchObject({ name: 'Phone', type: 'mobile', pushCallback: null, availableCommands: {} });

    const fromA = await t.client.accountDevices(a);
    expect(fromA.map((d) => [d.id, d.isCurrentDevice]).sort()).toEqual([[da.id, true], [db.id, false]].sort());
    const fromB = await t.client.accountDevices(b);
    expect(fromB.find((d) => d.id === db.id)?.isCurrentDevice).toBe(true);
    const listed = fromB.find((d) => d.id === da.id)!;
    expect(listed).toMatchObject({ name: 'Laptop 🦊', availableCommands: { 'https://identity.mozilla.com/cmd/open-uri': 'keys-a' }, location: {} });
    expect(Number.isInteger(listed.lastAccessTime)).toBe(true);

    // Idle devices are left out, the caller's own never.
    const future = await t.client.accountDevices(a, { filterIdleDevicesTimestamp: t.clock!.now() + 1 });
    expect(future.map((d) => d.id)).toEqual([da.id]);
  });

  it('formats last access and creation as relative times in the caller\'s language', async () => {
    const { a, b } = await twoSessions();
    const da = await t.client.accountDevice(a, { name: 'A' });
    // Five minutes on: session a's last access is written at most hourly, so it stays where it was.
    t.clock!.advance(5 * 60_000);
    const [listed] = await t.client.accountDevices(a);
    expect(listed).toMatchObject({ id: da.id, lastAccessTimeFormatted: '5 minutes ago', approximateLastAccessTime: null, approximateLastAccessTimeFormatted: null });
    const clients = await t.client.accountAttachedClients(b);
    for (const c of clients) expect([c.createdTimeFormatted, c.lastAccessTimeFormatted, c.approximateLastAccessTime]).toEqual(['5 minutes ago', '5 minutes ago', null]);

    // Accept-Language picks the language (its first supported tag), English when none is.
    const inLanguage = async (path: string, language: string) => {
      const res = await fetch(`${t.url}/v1${path}`, { headers: { authorization: bearerHeader('sessionToken', deriveTokenKeys('sessionToken', a).tokenId), 'accept-language': language } });
      return (await res.json()) as { lastAccessTimeFormatted: string }[];
    };
    expect((await inLanguage('/account/devices', 'xx, de;q=0.9, en;q=0.8'))[0]?.lastAccessTimeFormatted).toBe('vor 5 Minuten');
    expect((await inLanguage('/account/attached_clients', 'fr-CA'))[0]?.lastAccessTimeFormatted).toBe('il y a 5 minutes');
    expect((await inLanguage('/account/devices', 'xx'))[0]?.lastAccessTimeFormatted).toBe('5 minutes ago');
  });

  it('binds one device to a session: a second registration is 124, a foreign id 124 or 123', async () => {
    const { a, b } = await twoSessions();
    const da = await t.client.accountDevice(a, { name: 'first' });
    const err = await expectError(t.client.accountDevice(a, { name: 'second' }), 'DEVICE_CONFLICT');
    expect(err.body.deviceId).toBe(da.id);
    // Session b has no device: naming a's device is unknown to it.
    await expectError(t.client.accountDevice(b, { id: da.id, name: 'hijack' }), 'DEVICE_UNKNOWN');
    const db = await t.client.accountDevice(b, { name: 'b' });
    expect((await expectError(t.client.accountDevice(b, { id: da.id, name: 'hijack' }), 'DEVICE_CONFLICT')).body.deviceId).toBe(db.id);
    // The session's own device updates, with the id in either case.
    const updated = await t.client.accountDevice(a, { id: da.id.toUpperCase(), availableCommands: { x: 'y' } });
    expect(updated).toMatchObject({ id: da.id, name: 'first', availableCommands: { x: 'y' } });
  });

  it('a pushCallback without keys empties them; a new push tuple clears nothing else', async () => {
    const { a } = await twoSessions();
    const d = await t.client.accountDevice(a, { name: 'n', pushCallback: `${PUSH}one`, ...subscriptionKeys() });
    const reset = await t.client.accountDevice(a, { id: d.id, pushCallback: `${PUSH}two` });
    expect(reset).toMatchObject({ pushCallback: `${PUSH}two`, pushPublicKey: '', pushAuthKey: '', name: 'n' });
  });

  it('enforces every validation rule at its edges', async () => {
    const { a } = await twoSessions();
    const bad = (body: Record<string, unknown>) => rawRequest(t.url, 'POST', '/account/device', { body, authorization: bearerHeader('sessionToken', deriveTokenKeys('sessionToken', a).tokenId) });
    const invalid = async (body: Record<string, unknown>, name: 'INVALID_PARAMETER' | 'MISSING_PARAMETER' = 'INVALID_PARAMETER') => expectError(await bad(body), name);

    // At least one of name, type, pushCallback to register; an update needs a change.
    await invalid({}, 'MISSING_PARAMETER');
    await invalid({ availableCommands: {} }, 'MISSING_PARAMETER');
    await invalid({ id: 'a'.repeat(31), name: 'x' });
    await invalid({ id: 'g'.repeat(32), name: 'x' });
    // capabilities (deprecated) is accepted and ignored, but only as a short list of strings.
    await invalid({ name: 'x', capabilities: 'messages' });
    // name: 255 display-safe characters, emoji counted as one.
    await invalid({ name: 'n'.repeat(256) });
    await invalid({ name: 'tab\there' });
    await invalid({ name: 'evil\u202Egnp.exe' });
    await invalid({ name: 'private \uE000' });
    await invalid({ type: 't'.repeat(17) });
    // pushCallback: https, at most 255, on an allowed host.
    await invalid({ pushCallback: PUSH.replace('https:', 'http:') });
    await invalid({ pushCallback: 'https://updates.push.services.mozilla.com/wpush/v2/x' });
    await invalid({ pushCallback: `https://localhost:${new URL(PUSH).port}/x` });
    await invalid({ pushCallback: 'https://127.0.0.1/x' });
    await invalid({ pushCallback: PUSH.replace('https://', 'https://user:pw@') });
    await invalid({ pushCallback: `${PUSH}${'x'.repeat(256 - PUSH.length)}` });
    // The keys travel with the callback and with each other, and must be usable.
    const keys = subscriptionKeys();
    await invalid({ pushCallback: `${PUSH}x`, pushPublicKey: keys.pushPublicKey });
    await invalid({ name: 'x', pushPublicKey: keys.pushPublicKey, pushAuthKey: keys.pushAuthKey });
    await invalid({ pushCallback: `${PUSH}x`, pushPublicKey: 'A'.repeat(89), pushAuthKey: keys.pushAuthKey });
    await invalid({ pushCallback: `${PUSH}x`, pushPublicKey: `BA${'A'.repeat(85)}`, pushAuthKey: keys.pushAuthKey });
    await invalid({ pushCallback: `${PUSH}x`, pushPublicKey: keys.pushPublicKey, pushAuthKey: 'A'.repeat(25) });
    await invalid({ pushCallback: `${PUSH}x`, pushPublicKey: keys.pushPublicKey, pushAuthKey: 'A'.repeat(24) });
    await invalid({ pushCallback: `${PUSH}x`, pushPublicKey: keys.pushPublicKey.replace(/.$/, '+'), pushAuthKey: keys.pushAuthKey });
    // availableCommands: names of 1–100 allowed characters, data at most 2048.
    await invalid({ name: 'x', availableCommands: { ['c'.repeat(101)]: 'd' } });
    await invalid({ name: 'x', availableCommands: { 'no spaces': 'd' } });
    await invalid({ name: 'x', availableCommands: { c: 'd'.repeat(2049) } });
    await invalid({ name: 'x', availableCommands: { c: 5 } });
    expect(await t.client.accountDevices(a)).toEqual([]);

    // The accepted edges, all at once.
    const accepted = await t.client.accountDevice(a, {
      name: `${'n'.repeat(254)}🦊`, type: 't'.repeat(16), pushCallback: `${PUSH}${'x'.repeat(255 - PUSH.length)}`, ...keys,
      availableCommands: { ['c'.repeat(100)]: 'd'.repeat(2048), 'a.b_c/d-e:f': '' },
    });
    expect(accepted.name).toBe(`${'n'.repeat(254)}🦊`);
    expect(accepted.pushCallback).toHaveLength(255);
    const [listed] = await t.client.accountDevices(a);
    expect(listed?.availableCommands['c'.repeat(100)]).toHaveLength(2048);
  });

  it('destroys a device and the session it is on', async () => {
    const { a, b } = await twoSessions();
    const db = await t.client.accountDevice(b, { name: 'to go' });
    await expectError(t.client.accountDeviceDestroy(a, { id: hexId() }), 'DEVICE_UNKNOWN');
    await t.client.accountDeviceDestroy(a, { id: db.id });
    await expectError(t.client.sessionStatus(b), 'INVALID_TOKEN');
    expect((await t.client.accountDevices(a)).map((d) => d.id)).toEqual([]);
  });

  it('a device goes with its session, and sessions with a device do not expire when idle', async () => {
    const { acct, a, b } = await twoSessions();
    await t.client.accountDevice(b, { name: 'b' });
    await t.client.sessionDestroy(b);
    expect(await t.client.accountDevices(a)).toEqual([]);
    const row = await t.storage.db.selectFrom('session_tokens').select('has_device').where('uid', '=', (await t.client.sessionStatus(a)).uid).execute();
    expect(row.map((r) => r.has_device)).toEqual([0]);
    await t.client.accountDevice(a, { name: 'a' });
    const c = (await t.accounts.signIn(acct.email, acct.password)).sessionToken;
    // protocol.md §2.1: past SESSION_TOKEN_LIFETIME_WITHOUT_DEVICE_SECONDS idle, only the session with a device lives.
    t.clock!.advance(t.config.tokens.sessionWithoutDeviceLifetime * 1000 + 60_000);
    await t.client.sessionStatus(a);
    await expectError(t.client.sessionStatus(c), 'INVALID_TOKEN');
  });

  it('a password change keeps the caller\'s device on its new session and removes the others', async () => {
    const { acct, a, b } = await twoSessions();
    const da = await t.client.accountDevice(a, { name: 'mine' });
    await t.client.accountDevice(b, { name: 'other' });
    const changed = await t.accounts.changePassword(a, acct.email, acct.password, 'a new password');
    const devices = await t.client.accountDevices(changed.sessionToken!);
    expect(devices.map((d) => [d.id, d.isCurrentDevice])).toEqual([[da.id, true]]);
  });

  it('attached clients: one entry per session with its device, every key present, handles not token ids', async () => {
    const { a, b } = await twoSessions();
    const da = await t.client.accountDevice(a, { name: 'Laptop', type: 'desktop' });
    const clients = await t.client.accountAttachedClients(a);
    expect(clients).toHaveLength(2);
    const KEYS = [
      'clientId', 'deviceId', 'sessionTokenId', 'refreshTokenId', 'isCurrentSession', 'deviceType', 'name', 'createdTime', 'createdTimeFormatted',
      'lastAccessTime', 'lastAccessTimeFormatted', 'approximateLastAccessTime', 'approximateLastAccessTimeFormatted', 'scope', 'location', 'userAgent', 'os', 'providerId',
    ];
    for (const c of clients) expect(Object.keys(c).sort()).toEqual([...KEYS].sort());
    const mine = clients.find((c) => c.isCurrentSession)!;
    expect(mine).toMatchObject({ deviceId: da.id, name: 'Laptop', deviceType: 'desktop', clientId: null, refreshTokenId: null, scope: null });
    const other = clients.find((c) => !c.isCurrentSession)!;
    expect(other.deviceId).toBeNull();
    // The handle is not b's token id, and presented as a token it is refused.
    const bId = deriveTokenKeys('sessionToken', b).tokenId;
    expect(other.sessionTokenId).toMatch(/^[0-9a-f]{64}$/);
    expect(other.sessionTokenId).not.toBe(bId);
    expectError(await rawRequest(t.url, 'GET', '/session/status', { authorization: bearerHeader('sessionToken', other.sessionTokenId!) }), 'INVALID_TOKEN');
    // The deprecated list says the same.
    const sessions = await t.client.accountSessions(a);
    expect(sessions.map((s) => [s.id, s.isDevice, s.deviceId]).sort()).toEqual([[mine.sessionTokenId, true, da.id], [other.sessionTokenId, false, null]].sort());
    // Destroying by handle ends b.
    await t.client.accountAttachedClientDestroy(a, { sessionTokenId: other.sessionTokenId! });
    await expectError(t.client.sessionStatus(b), 'INVALID_TOKEN');
    expect((await t.client.accountAttachedClients(a)).map((c) => c.sessionTokenId)).toEqual([mine.sessionTokenId]);
  });

  it('attached client destroy by device removes device and session; mismatches and refresh tokens are refused', async () => {
    const { a, b } = await twoSessions();
    const db = await t.client.accountDevice(b, { name: 'b' });
    const [mine] = (await t.client.accountAttachedClients(a)).filter((c) => c.isCurrentSession);
    expectError(await rawRequest(t.url, 'POST', '/account/attached_client/destroy', { body: {}, authorization: bearerHeader('sessionToken', deriveTokenKeys('sessionToken', a).tokenId) }), 'MISSING_PARAMETER');
    await expectError(t.client.accountAttachedClientDestroy(a, { deviceId: db.id, sessionTokenId: mine!.sessionTokenId! }), 'INVALID_PARAMETER');
    await expectError(t.client.accountAttachedClientDestroy(a, { refreshTokenId: hexId(64) }), 'REFRESH_TOKEN_UNKNOWN');
    await expectError(t.client.accountAttachedClientDestroy(a, { sessionTokenId: hexId(64) }), 'INVALID_TOKEN');
    await t.client.accountAttachedClientDestroy(a, { deviceId: db.id });
    await expectError(t.client.sessionStatus(b), 'INVALID_TOKEN');
    expect(await t.client.accountDevices(a)).toEqual([]);
    expect((await t.client.accountAttachedClients(a))).toHaveLength(1);
  });

  it('destroying needs a confirmed session; another account\'s device is unknown', async () => {
    const other = await twoSessions();
    const theirs = await t.client.accountDevice(other.a, { name: 'theirs' });
    const { a } = await twoSessions();
    await expectError(t.client.accountDeviceDestroy(a, { id: theirs.id }), 'DEVICE_UNKNOWN');
    await expectError(t.client.accountAttachedClientDestroy(a, { deviceId: theirs.id }), 'DEVICE_UNKNOWN');
    const email = newEmail('confirm');
    const signedUp = await t.accounts.signUp(email, 'a password here', { verificationMethod: 'email-otp' });
    await expectError(t.client.accountDeviceDestroy(signedUp.sessionToken, { id: theirs.id }), 'SESSION_UNVERIFIED');
  });

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

  it('marks GET /account/sessions deprecated in the OpenAPI document', async () => {
    const doc = (await rawRequest(t.url, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { deprecated?: boolean }>> };
    expect(doc.paths['/v1/account/sessions']?.get?.deprecated).toBe(true);
    expect(doc.paths['/v1/account/attached_clients']?.get?.deprecated).toBeUndefined();
  });
});

const hexId = (n = 32) => randomBytes(n / 2).toString('hex');
