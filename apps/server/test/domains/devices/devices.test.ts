import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeader, deriveTokenKeys } from '@tessera/protocol';
import { httpDialects, newEmail, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';
import { hexId, startDevicesServer, subscriptionKeys, twoSessions as signedInTwice } from './devices-server.js';

// Devices and attached clients through HTTP with the SDK (issue 11): registration, validation,
// destroying, attached clients. Pushes and device commands are in device-push.test.ts.

describe.each(httpDialects())('devices (%s)', (dialect) => {
  let t: TestServer;
  let PUSH: string;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ t, PUSH, close } = await startDevicesServer(dialect));
  });
  afterAll(async () => close?.());
  const twoSessions = () => signedInTwice(t);

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

  it('marks GET /account/sessions deprecated in the OpenAPI document', async () => {
    const doc = (await rawRequest(t.url, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { deprecated?: boolean }>> };
    expect(doc.paths['/v1/account/sessions']?.get?.deprecated).toBe(true);
    expect(doc.paths['/v1/account/attached_clients']?.get?.deprecated).toBeUndefined();
  });
});
