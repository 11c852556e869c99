import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { hex, Location, StringEnum } from '../../http/schemas.js';
import { DISPLAY_SAFE_PATTERN } from './rules.js';

// The wire shapes of devices and attached clients (protocol.md §5.7, §5.8): the one source of both
// the OpenAPI document and the types the service builds (`Static<…>`). routes.ts and
// attached-clients.ts import them from here, so neither imports the other.

export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const deviceId = hex(32, 'A device id: 16 bytes as 32 hex characters.');
export const COMMAND_NAME = '^[a-zA-Z0-9._/:-]{1,100}$';
export const availableCommands = Type.Unsafe<Record<string, string>>({
  type: 'object',
  propertyNames: { pattern: COMMAND_NAME },
  additionalProperties: { type: 'string', maxLength: 2048 },
  description: 'The commands the device accepts: command name (1–100 letters, digits and `. _ / - :`) → the data it publishes for it (at most 2048 characters), e.g. the keys a sender encrypts a tab to.',
});
export const name = Type.String({ maxLength: 255, pattern: DISPLAY_SAFE_PATTERN, description: 'The device\'s name: at most 255 characters, display-safe (no control, private-use or bidirectional-override characters; emoji are fine).' });
export const type = Type.String({ maxLength: 16, pattern: DISPLAY_SAFE_PATTERN, description: 'What kind of device: desktop, mobile, tablet, vr, tv; at most 16 characters.' });
export const pushCallback = Type.String({
  maxLength: 255, pattern: '^(?:https://.*)?$',
  description: 'The Web Push subscription endpoint: an https URL of at most 255 characters on a host of PUSH_ALLOWED_HOSTS (the real push services by default). Stored and answered normalised (as WHATWG URL serialises it: `https:///host/x` becomes `https://host/x`, hosts in lower case and percent-decoding undone), and checked as stored. Empty: no push.',
});
export const pushPublicKey = Type.String({ maxLength: 88, pattern: '^[A-Za-z0-9_-]*$', description: 'The subscription\'s P-256 public key (`p256dh`), base64url; pushes are encrypted to it (aes128gcm, RFC 8291).' });
export const pushAuthKey = Type.String({ maxLength: 24, pattern: '^[A-Za-z0-9_-]*$', description: 'The subscription\'s 16-byte auth secret, base64url.' });
export const location = Location;

/**
 * Firefox Sync's collections (one per engine) that a device may tell the others changed. Firefox
 * sends `clients` after uploading its client record (`reason` `firstsync`) and after queueing a
 * command for another device (`sendtab`); the others are its engines' names.
 */
export const SYNC_COLLECTIONS = ['addons', 'addresses', 'bookmarks', 'clients', 'creditcards', 'forms', 'history', 'passwords', 'prefs', 'tabs'] as const;

/**
 * What a client may push to the account's devices through POST /account/devices/notify: only what
 * clients send each other (issue 22). The account events (`fxaccounts:*`: device connected or
 * disconnected, password changed or reset, account destroyed, profile updated, command received,
 * verify login) are the server's own: a device acts on them, so a client must never be able to
 * send one in the server's name.
 */
export const NotifyPayload = Type.Object({
  version: Type.Literal(1),
  command: Type.Literal('sync:collection_changed', { description: 'The collections named changed on the server: the device syncs them now.' }),
  data: Type.Object({
    collections: Type.Array(StringEnum(SYNC_COLLECTIONS), { minItems: 1, maxItems: SYNC_COLLECTIONS.length, uniqueItems: true, description: 'Sync collections (engine names).' }),
    reason: Type.Optional(Type.String({ pattern: '^[a-z_]{1,32}$', description: 'Why, in a word: Firefox sends `firstsync` or `sendtab`.' })),
  }, { additionalProperties: false }),
}, {
  additionalProperties: false,
  description: 'The one payload clients send each other: `{"version":1,"command":"sync:collection_changed","data":{"collections":["clients"],"reason":"firstsync"}}`. The account events (`fxaccounts:*`) come from the server only and are refused here (400/107).',
});
export type NotifyPayload = Static<typeof NotifyPayload>;

const formatted = (of: string) => Type.String({
  description: `${of} as a relative time ("now", "5 minutes ago", "yesterday") in the caller's language (Accept-Language; English when none is supported).`,
});
// Kept for relying parties that read them: the protocol reports an approximate time for clients
// last used before last-access tracking began. Tessera tracks it from a session's first request.
const approximateLastAccessTime = nullable(Type.Integer({ description: 'Always null: Tessera knows every client\'s last access (ms) to within an hour, so it never approximates.' }));
const approximateLastAccessTimeFormatted = nullable(Type.String({ description: 'Always null, like approximateLastAccessTime.' }));

export const Device = Type.Object({
  id: deviceId,
  createdAt: Type.Integer({ description: 'When it was registered (ms).' }),
  name: nullable(Type.String()),
  type: nullable(Type.String()),
  pushCallback: nullable(Type.String()),
  pushPublicKey: nullable(Type.String()),
  pushAuthKey: nullable(Type.String()),
  pushEndpointExpired: Type.Boolean({ description: 'The push service said the endpoint is gone (404/410); a new subscription clears it.' }),
  availableCommands,
});

export const ListedDevice = Type.Object({
  id: deviceId,
  isCurrentDevice: Type.Boolean({ description: 'It is registered on the session that asks.' }),
  lastAccessTime: Type.Integer({ description: 'Last use of its session (ms; written at most hourly).' }),
  lastAccessTimeFormatted: formatted('lastAccessTime'),
  approximateLastAccessTime,
  approximateLastAccessTimeFormatted,
  location,
  name: nullable(Type.String()),
  type: nullable(Type.String({ description: 'As registered, else the kind of device its session\'s User-Agent names.' })),
  pushCallback: nullable(Type.String({ description: 'Null for the other devices when the calling session is not confirmed at its account\'s AAL: the endpoint and keys let whoever holds them push to the device.' })),
  pushPublicKey: nullable(Type.String({ description: 'Null like pushCallback.' })),
  pushAuthKey: nullable(Type.String({ description: 'Null like pushCallback.' })),
  pushEndpointExpired: Type.Boolean(),
  availableCommands,
});
export type ListedDevice = Static<typeof ListedDevice>;

export const AttachedClient = Type.Object({
  clientId: nullable(Type.String({ description: 'The OAuth client of a refresh token.' })),
  deviceId: nullable(deviceId),
  sessionTokenId: nullable(Type.String({ description: 'The session\'s handle: names it to /account/attached_client/destroy and /session/destroy, and is not a token (presented as one, it is refused).' })),
  refreshTokenId: nullable(Type.String()),
  isCurrentSession: Type.Boolean(),
  deviceType: nullable(Type.String()),
  name: nullable(Type.String({ description: 'The device\'s name, else "<browser> on <OS>" from the session\'s User-Agent.' })),
  createdTime: nullable(Type.Integer({ description: 'ms' })),
  createdTimeFormatted: nullable(formatted('createdTime')),
  lastAccessTime: nullable(Type.Integer({ description: 'ms; written at most hourly.' })),
  lastAccessTimeFormatted: nullable(formatted('lastAccessTime')),
  approximateLastAccessTime,
  approximateLastAccessTimeFormatted,
  scope: nullable(Type.Array(Type.String())),
  location,
  userAgent: Type.String({ description: 'Browser and version from the session\'s User-Agent; empty when unknown.' }),
  os: nullable(Type.String()),
  providerId: nullable(Type.String({ description: 'The provider (`google`, `apple`) whose sign-in opened the session (POST /linked_account/login); null otherwise.' })),
});
export type AttachedClient = Static<typeof AttachedClient>;
