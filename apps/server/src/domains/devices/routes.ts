import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { contextOf } from '../../http/context.js';
import { responses } from '../../http/responses.js';
import { hex, sessionTokenId } from '../../http/schemas.js';
import {
  AttachedClient, availableCommands, COMMAND_NAME, Device, deviceId, ListedDevice, location, name, NotifyPayload, nullable, pushAuthKey, pushCallback, pushPublicKey, type,
} from './schemas.js';
import type { DevicesService } from './service.js';

// The device routes of spec 1 §7 (protocol.md §5.7, §5.8): registering the calling session's
// device, listing and destroying devices, and the attached-clients view of everything signed in.

const TAG = 'Devices';
const DEVICE_ID = /^[0-9a-fA-F]{32}$/;

const idleQuery = Type.Object({
  filterIdleDevicesTimestamp: Type.Optional(Type.Integer({ minimum: 0, description: 'Leave out what was last used before this time (ms); the caller\'s own entry stays.' })),
}, { additionalProperties: false });

const DeviceBody = Type.Object({
  id: Type.Optional(hex(32, 'The device to update (the calling session\'s own); without it a device is registered.')),
  name: Type.Optional(name),
  type: Type.Optional(type),
  pushCallback: Type.Optional(pushCallback),
  pushPublicKey: Type.Optional(pushPublicKey),
  pushAuthKey: Type.Optional(pushAuthKey),
  availableCommands: Type.Optional(availableCommands),
  // Old clients of the protocol still send it; accepted and ignored.
  capabilities: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 32, deprecated: true, description: 'Deprecated and ignored: old clients still send it (usually `[]`).' })),
}, {
  additionalProperties: false,
  // The key pair travels with its endpoint.
  dependentRequired: { pushPublicKey: ['pushAuthKey', 'pushCallback'], pushAuthKey: ['pushPublicKey', 'pushCallback'] },
  // Registration names the device or its endpoint; an update changes at least one thing.
  if: { required: ['id'] },
  then: { anyOf: [{ required: ['name'] }, { required: ['type'] }, { required: ['pushCallback'] }, { required: ['availableCommands'] }] },
  else: { anyOf: [{ required: ['name'] }, { required: ['type'] }, { required: ['pushCallback'] }] },
});

export const deviceRoutes: FastifyPluginAsyncTypebox<{ devices: DevicesService }> = async (app, { devices }) => {
  app.post('/account/device', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'Firefox registers its device right after signing in, before the sign-in is confirmed; the device is the session\'s own and receives nothing until the session is confirmed.' },
    },
    schema: {
      tags: [TAG], summary: 'Register or update the session\'s device',
      description: [
        'Without `id`, registers a device on the calling session (at least one of `name`, `type`, `pushCallback`); a session has one device, so a second registration is 400/124 with the `deviceId` it has.',
        'With `id` (the session\'s own device), updates what is sent (at least one field besides `id`); an `id` the account has no device with is 400/123, checked before the rest of the body; another device of the account is 124 when the session has one, else 123.',
        'A `pushCallback` sent without `pushPublicKey` and `pushAuthKey` sets both keys to empty; a new push endpoint or key pair clears `pushEndpointExpired`. The callback is kept and answered normalised.',
        'The public key must be an uncompressed P-256 point (65 bytes) and the auth secret 16 bytes.',
        '`availableCommands`, when sent, replaces the device\'s list. A `name` that is empty, like a device registered without one, reads back null. `capabilities` (deprecated) is accepted and ignored.',
      ].join(' '),
      body: DeviceBody,
      response: responses(Device, ['DEVICE_UNKNOWN', 'DEVICE_CONFLICT'], { auth: true }),
    },
    // The incumbent's order, which its clients rely on: an unknown device is 123 whatever the body holds.
    preValidation: async (req) => {
      const id = (req.body as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && DEVICE_ID.test(id)) await devices.checkNamedDevice(credentialsOf(req, 'sessionToken'), id);
    },
  }, async (req) => devices.register(credentialsOf(req, 'sessionToken'), req.body));

  app.get('/account/devices', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'Firefox lists the devices right after signing in, before the sign-in is confirmed; such a session sees the other devices without their push endpoints and keys.' },
    },
    schema: {
      tags: [TAG], summary: 'The account\'s devices',
      description: 'Every device registered on a session of the account, most recently used first. A session not confirmed at its account\'s AAL (unconfirmed, or confirmed by email while two-step authentication is on) gets `pushCallback`, `pushPublicKey` and `pushAuthKey` null for every device but its own.',
      querystring: idleQuery,
      response: responses(Type.Array(ListedDevice), [], { auth: true }),
    },
  }, async (req) => devices.list(credentialsOf(req, 'sessionToken'), req.query.filterIdleDevicesTimestamp, contextOf(req).acceptLanguage));

  app.post('/account/device/destroy', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Remove a device and sign it out',
      description: 'Deletes one of the account\'s devices and ends the session it is registered on. Needs a confirmed session (an unconfirmed one gets 400/138).',
      body: Type.Object({ id: deviceId }, { additionalProperties: false }),
      response: responses(Type.Object({}), ['DEVICE_UNKNOWN', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    await devices.destroy(credentialsOf(req, 'sessionTokenVerified'), req.body.id);
    return {};
  });

  app.get('/account/attached_clients', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'Firefox lists the attached clients right after signing in, before the sign-in is confirmed; the list names clients and holds no secret.' },
    },
    schema: {
      tags: [TAG], summary: 'Everything signed in to the account',
      description: 'One entry per session (with the device registered on it, if any), most recently used first, at most 500. Every key is present; what does not apply is null. Sessions are named by their handle, never by a token id.',
      querystring: idleQuery,
      response: responses(Type.Array(AttachedClient), [], { auth: true }),
    },
  }, async (req) => devices.attachedClients(credentialsOf(req, 'sessionToken'), req.query.filterIdleDevicesTimestamp, contextOf(req).acceptLanguage));

  app.post('/account/attached_client/destroy', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Sign out an attached client',
      description: 'With `deviceId`, removes the device and ends its session; with `sessionTokenId` (a handle from /account/attached_clients, or a token id), ends that session and removes its device. Both together must name the same client. With `refreshTokenId` (a handle from /account/attached_clients), revokes that OAuth refresh token and, in the same transaction, the access tokens of its authorization grant (400/182 when the account has none such, or it is not of `clientId`); with `clientId` alone, revokes every refresh and access token of that client. Needs a confirmed session.',
      body: Type.Object({
        clientId: Type.Optional(hex(16, 'An OAuth client id.')),
        deviceId: Type.Optional(deviceId),
        sessionTokenId: Type.Optional(sessionTokenId),
        refreshTokenId: Type.Optional(hex(64, 'A refresh token\'s id.')),
      }, {
        additionalProperties: false,
        anyOf: [{ required: ['deviceId'] }, { required: ['sessionTokenId'] }, { required: ['refreshTokenId'] }, { required: ['clientId'] }],
      }),
      response: responses(Type.Object({}), ['DEVICE_UNKNOWN', 'REFRESH_TOKEN_UNKNOWN', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    await devices.destroyAttachedClient(credentialsOf(req, 'sessionTokenVerified'), req.body);
    return {};
  });

  app.post('/account/devices/invoke_command', {
    config: { auth: 'sessionTokenVerified', rateLimit: { actions: ['invokeDeviceCommand'] } },
    schema: {
      tags: [TAG], summary: 'Send a command to another device',
      description: [
        'Stores the command for `target` (a device of the account that lists `command` in its availableCommands, on a session confirmed at the account\'s AAL, else 400/157) and pushes it `fxaccounts:command_received` with the command\'s index.',
        'The target reads it with GET /account/device/commands until `ttl` milliseconds pass (default and maximum 10,000,000); after that it is never delivered. `payload` is at most 2048 characters as JSON, usually encrypted to the key the target published for the command.',
        'Needs a session confirmed at the account\'s AAL (400/138, or 400/222 on an account with two-step authentication). At most DEVICE_COMMANDS_PENDING_MAX commands wait for one device: one more is 429/114 with `retryAfter` (seconds until the first of them expires). Rate limited per account and client address (`invokeDeviceCommand`).',
      ].join(' '),
      body: Type.Object({
        target: deviceId,
        command: Type.String({ pattern: COMMAND_NAME, description: 'One of the target\'s availableCommands.' }),
        payload: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'What the target needs to run the command; at most 2048 characters as JSON.' }),
        ttl: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'How long the command waits for the target, in milliseconds.' })),
      }, { additionalProperties: false }),
      response: responses(Type.Object({}), ['DEVICE_UNKNOWN', 'DEVICE_COMMAND_UNAVAILABLE', 'SESSION_UNVERIFIED', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => devices.messages.invokeCommand(credentialsOf(req, 'sessionTokenVerified'), req.body));

  app.get('/account/device/commands', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'A device reads what was sent to it; commands go only to devices on confirmed sessions, so an unconfirmed one finds none.' },
    },
    schema: {
      tags: [TAG], summary: 'Commands sent to this device',
      description: 'The calling session\'s device\'s commands from `index` on (oldest first, at most `limit`), leaving out those past their ttl. `index` in the reply is the last one returned (or the one asked for when none is): ask next from it plus one. `last` is false when more are waiting. A session without a device gets 400/123.',
      querystring: Type.Object({
        index: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'The first index wanted.' })),
        limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 100, description: 'At most this many (0–100, default 100).' })),
      }, { additionalProperties: false }),
      response: responses(Type.Object({
        index: Type.Integer(),
        last: Type.Boolean(),
        messages: Type.Array(Type.Object({
          index: Type.Integer(),
          data: Type.Object({
            command: Type.String(),
            payload: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
            sender: nullable(deviceId),
          }),
        })),
      }), ['DEVICE_UNKNOWN'], { auth: true }),
    },
  }, async (req) => devices.messages.commands(credentialsOf(req, 'sessionToken'), req.query.index ?? 0, req.query.limit ?? 100));

  app.post('/account/devices/notify', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Push to the account\'s devices',
      description: [
        'Pushes `payload` to the devices named in `to`, or to every device but those `excluded` when `to` is `"all"`. `payload` is what clients send each other: `sync:collection_changed` naming Sync collections (Firefox sends it after uploading its client record); the account events (`fxaccounts:*`) are the server\'s own and refused (400/107), as is anything else.',
        '`TTL` is how long the push service keeps it for an offline device, in seconds (default 0: now or never). Devices without a live push endpoint are skipped; the reply does not wait for the push.',
        'Needs a session confirmed at the account\'s AAL (400/138, or 400/222 on an account with two-step authentication).',
      ].join(' '),
      body: Type.Object({
        to: Type.Union([Type.Literal('all'), Type.Array(deviceId, { minItems: 1 })]),
        excluded: Type.Optional(Type.Array(deviceId, { description: 'Only with `to: "all"`.' })),
        payload: NotifyPayload,
        TTL: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
      }, {
        additionalProperties: false,
        // `excluded` only narrows "all".
        if: { required: ['excluded'] },
        then: { properties: { to: { const: 'all' } } },
      }),
      response: responses(Type.Object({}), ['SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => devices.messages.notify(credentialsOf(req, 'sessionTokenVerified'), req.body));

  app.post('/session/verify/send_push', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'It confirms an unconfirmed sign-in: the code goes to the account\'s devices on confirmed sessions, not to the caller.' },
      rateLimit: { actions: ['sendVerifyCode'] },
    },
    schema: {
      tags: ['Session'], summary: 'Ask the account\'s other devices to confirm this sign-in',
      description: 'For an unconfirmed session: pushes `fxaccounts:verify_login` with the session\'s 6-digit confirmation code (a new one, replacing any emailed code) to the account\'s devices on confirmed sessions. A device shows the code; the person types it where they are signing in, which sends it to /session/verify/verify_push. `sent` is how many devices were pushed to (0 for a confirmed session, or when no device can be reached: fall back to email). A sign-in waiting for the second factor (the account has two-step authentication) is refused 400/222: another device\'s code does not confirm it.',
      body: Type.Object({}, { additionalProperties: false }),
      response: responses(Type.Object({ sent: Type.Integer() }), ['INSUFFICIENT_AAL'], { auth: true }),
    },
  }, async (req) => devices.messages.sendVerifyPush(credentialsOf(req, 'sessionToken')));

  app.post('/session/verify/verify_push', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'It confirms an unconfirmed sign-in with the code another device showed.' },
      rateLimit: { actions: ['verifySessionCode'], failed: { INVALID_EXPIRED_OTP_CODE: 'verifySessionCodeFailed' } } },
    schema: {
      tags: ['Session'], summary: 'Confirm the session with a code another device showed',
      description: 'The code pushed by /session/verify/send_push confirms the session, with the tries, expiry and failure counting of /session/verify_code (the two check the same code). A sign-in waiting for the second factor is not confirmed by it: 400/222.',
      body: Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$', description: '6 digits.' }) }, { additionalProperties: false }),
      response: responses(Type.Object({}), ['INVALID_EXPIRED_OTP_CODE', 'EXPIRED_TOKEN_VERIFICATION_CODE', 'INSUFFICIENT_AAL', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => {
    await devices.messages.verifyPush(credentialsOf(req, 'sessionToken'), req.body.code, contextOf(req), (err) =>
      req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
    return {};
  });

  app.get('/account/sessions', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'The deprecated form of /account/attached_clients, which an unconfirmed sign-in may read.' },
    },
    schema: {
      tags: [TAG], summary: 'The account\'s sessions (deprecated)', deprecated: true,
      description: 'Deprecated: use GET /account/attached_clients. Each session of the account by its handle, with the device registered on it.',
      response: responses(Type.Array(Type.Object({
        id: Type.String({ description: 'The session\'s handle.' }),
        createdTime: Type.Integer(),
        lastAccessTime: Type.Integer(),
        userAgent: Type.String(),
        os: nullable(Type.String()),
        deviceType: nullable(Type.String()),
        isCurrentDevice: Type.Boolean(),
        isDevice: Type.Boolean(),
        deviceId: nullable(deviceId),
        deviceName: nullable(Type.String()),
        deviceAvailableCommands: nullable(availableCommands),
        location,
      })), [], { input: false, auth: true }),
    },
  }, async (req) => devices.sessionsList(credentialsOf(req, 'sessionToken')));
};
