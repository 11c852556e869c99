import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EMAIL_PATTERN, EMAIL_RULES, MAX_LENGTH } from '../email-address.js';
import { ErrorBody } from './responses.js';

// The validation rules of spec 1 §5 as TypeBox schemas, shared by every route. Each rule has an
// accepted-edge and a rejected-edge test in test/validation.test.ts.

/** Exactly `length` hex characters (either case; handlers lowercase them). */
export const hex = (length: number, description?: string) =>
  Type.String({ pattern: `^[0-9a-fA-F]{${length}}$`, minLength: length, maxLength: length, ...(description ? { description } : {}) });

/** Pairs of hex digits, at most `max` characters. */
export const hexUpTo = (max: number, description?: string) =>
  Type.String({ pattern: '^(?:[0-9a-fA-F]{2})+$', maxLength: max, ...(description ? { description } : {}) });

/**
 * Display-safe text (spec 1 §5, device name): no control characters, lone surrogates, private-use
 * or unassigned-special code points, line or paragraph separators, bidirectional overrides and
 * isolates (they reorder what follows them and can disguise a name). Characters outside the BMP
 * (emoji) are fine. A JSON Schema pattern: Ajv compiles it with the `u` flag.
 */
export const DISPLAY_SAFE_PATTERN = '^[^\\p{Cc}\\p{Cs}\\p{Co}\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069\\uFFF9-\\uFFFC\\uFFFE\\uFFFF]*$';

// Schemas many routes share are named: registered once (SHARED_SCHEMAS), each is one component of
// the OpenAPI document that routes reference (`ref`), so the document and the SDK's types say it once.
// A route that says more about a field wraps the reference (`{ description, allOf: [ref] }`), as
// `email(description)` does: a `$ref`'s sibling keywords do not reach the document.

/** `schema` under the name `$id`. */
const named = <T extends TSchema>($id: string, schema: T): T => ({ ...schema, $id });
/** A reference to a named schema, typed as the schema. */
export const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(schema.$id!));

/**
 * An email address in the strict grammar of email-address.ts: the pattern says every rule a regular
 * expression can, the description the rest (IDNA), and the `email-address` format checks them all.
 * The rules are the named schema's description; a route's own `description` goes beside the
 * reference (issue 22: the document says exactly what the server accepts).
 */
export const EmailAddress = Type.String({ $id: 'EmailAddress', maxLength: MAX_LENGTH, pattern: EMAIL_PATTERN, format: 'email-address', description: EMAIL_RULES });
export const email = (description?: string) =>
  (description ? Type.Unsafe<string>({ description, allOf: [Type.Ref('EmailAddress')] }) : ref(EmailAddress));

export const AuthPW = named('AuthPW', hex(64, 'HKDF(quickStretchedPW, "authPW") as 64 hex characters; the password itself never leaves the client.'));
export const authPW = ref(AuthPW);
export const WrapKb = named('WrapKb', hex(64, 'kB XOR unwrapBKey, chosen by the client (v2 sign-up, password change, reset with recovery key).'));
export const wrapKb = ref(WrapKb);
export const Uid = named('Uid', hex(32, 'Account id: 16 bytes as 32 hex characters.'));
export const uid = ref(Uid);
export const sessionTokenId = hex(64, 'Names a session: its HKDF-derived tokenId (not the token), or its handle.');

/** protocol.md §1.2: the v2 salt is the quickStretchV2 prefix and 32 lowercase hex characters, nothing else. */
export const CLIENT_SALT_PATTERN = '^identity\\.mozilla\\.com/picl/v1/quickStretchV2:[0-9a-f]{32}$';
export const ClientSalt = Type.String({
  $id: 'ClientSalt',
  maxLength: 128,
  pattern: CLIENT_SALT_PATTERN,
  description: 'The v2 salt: `identity.mozilla.com/picl/v1/quickStretchV2:` and 32 lowercase hex characters. Sent only with the other version-2 fields; without it version 1 is assumed.',
});
export const clientSalt = ref(ClientSalt);

export const Service = Type.String({ $id: 'Service', maxLength: 16, pattern: '^[a-zA-Z0-9-]*$', description: 'The relying service (letters, digits, hyphen; at most 16).' });
export const service = ref(Service);
export const RedirectTo = Type.String({ $id: 'RedirectTo', maxLength: 2048, description: 'Where to send the user after an emailed link: an absolute http(s) URL on PUBLIC_URL, CONTENT_URL or an origin of REDIRECT_ALLOWED_ORIGINS (any other is refused with 400/107); at most 2048 characters.' });
export const redirectTo = ref(RedirectTo);
export const Resume = Type.String({ $id: 'Resume', maxLength: 2048, pattern: '^[A-Za-z0-9+/=_.~-]*$', description: 'Opaque state the web app resumes from (base64 or base64url, or any letters, digits and + / = _ . ~ -), carried into the emailed link; at most 2048 characters.' });
export const resume = ref(Resume);
export const reason = Type.String({ maxLength: 16, description: 'Why the request is made (e.g. `signin`); at most 16 characters.' });
export const unblockCode = Type.String({ pattern: '^[a-zA-Z0-9]{8}$', minLength: 8, maxLength: 8, description: 'An 8-character unblock code from email.' });

export const VERIFICATION_METHODS = ['email', 'email-otp', 'email-2fa', 'email-captcha', 'totp-2fa'] as const;
/** A string that must be one of `values` (an `enum`, so errors list what is allowed). */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const verificationMethod = StringEnum(VERIFICATION_METHODS, { description: 'How the new session is to be confirmed.' });

const utm = Type.String({ maxLength: 128, pattern: '^[\\w/.%-]+$' });
const entrypointLike = Type.String({ maxLength: 128, pattern: '^[\\w.:-]+$' });

/** Metrics context (protocol.md §5): flowId and flowBeginTime must come together. */
export const MetricsContextSchema = Type.Object(
  {
    deviceId: Type.Optional(hex(32)),
    entrypoint: Type.Optional(entrypointLike),
    entrypointExperiment: Type.Optional(entrypointLike),
    entrypointVariation: Type.Optional(entrypointLike),
    flowId: Type.Optional(hex(64)),
    flowBeginTime: Type.Optional(Type.Integer({ minimum: 1 })),
    utmCampaign: Type.Optional(utm),
    utmContent: Type.Optional(utm),
    utmMedium: Type.Optional(utm),
    utmSource: Type.Optional(utm),
    utmTerm: Type.Optional(utm),
    productId: Type.Optional(Type.String({ maxLength: 128, pattern: '^[\\w-]+$' })),
    planId: Type.Optional(Type.String({ maxLength: 128, pattern: '^[\\w-]+$' })),
    clientId: Type.Optional(hex(16)),
    service: Type.Optional(service),
  },
  {
    additionalProperties: false,
    dependentRequired: { flowId: ['flowBeginTime'], flowBeginTime: ['flowId'] },
    $id: 'MetricsContext',
    description: 'Analytics context of the flow; flowId (64 hex) and flowBeginTime must be sent together.',
  },
);
export const metricsContext = Type.Unsafe<Static<typeof MetricsContextSchema>>(Type.Ref('MetricsContext'));

export const keysQuery = Type.Boolean({ description: 'Also return a keyFetchToken for GET /account/keys.' });

/**
 * protocol.md §1.4: the version-2 password fields travel together, and with wrapKb (the kB they
 * wrap). As a schema rule, so the OpenAPI document says what the server enforces.
 */
const V2_FIELDS = ['authPWVersion2', 'wrapKbVersion2', 'clientSalt', 'wrapKb'] as const;
const V2_DEPENDENCIES = Object.fromEntries(V2_FIELDS.slice(0, 3).map((f) => [f, V2_FIELDS.filter((o) => o !== f)]));

/** A body that sets a password: refuses unknown fields, and the version-2 fields go together. */
export const passwordBody = <P extends Record<string, TSchema>>(properties: P) =>
  Type.Object(properties, { additionalProperties: false, dependentRequired: V2_DEPENDENCIES });

/** A JSON object body that refuses unknown fields. */
export const body = <P extends Record<string, TSchema>>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

export const Empty = Type.Object({}, { additionalProperties: false, description: 'An empty object.' });

/** The confirmation state every sign-in style reply carries (spec 1 §3). */
export const SigninState = {
  verificationMethod: Type.Optional(Type.String({ description: 'How the pending confirmation is delivered (email, email-otp, …).' })),
  verificationReason: Type.Optional(Type.String({ description: 'Why confirmation is pending: signup, login or change_password.' })),
  emailVerified: Type.Boolean(),
  sessionVerified: Type.Boolean(),
  verified: Type.Boolean({ description: 'emailVerified and sessionVerified (kept for older clients).' }),
};

/**
 * Where a session, device or request was, as domains/geo looks it up in the MaxMind-format
 * database (GEOIP_DATABASE_FILE): each key only when known; `{}` without a database.
 */
export const LocationSchema = Type.Object({
  city: Type.Optional(Type.String({ description: 'City name (English).' })),
  country: Type.Optional(Type.String({ description: 'Country name (English).' })),
  countryCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code.' })),
  state: Type.Optional(Type.String({ description: 'First-level subdivision (state, region) name (English).' })),
  stateCode: Type.Optional(Type.String({ maxLength: 3, description: 'The subdivision\'s ISO 3166-2 code without the country part (e.g. `CA`).' })),
}, { $id: 'Location', additionalProperties: false, description: 'Where it was used, from the location database (GEOIP_DATABASE_FILE); empty when unknown or when no database is configured.' });
export const Location = ref(LocationSchema);

/** Every named schema, registered once with the validators and the OpenAPI document (installValidators). */
export const SHARED_SCHEMAS: TSchema[] = [ErrorBody, MetricsContextSchema, EmailAddress, AuthPW, WrapKb, Uid, ClientSalt, Service, RedirectTo, Resume, LocationSchema];
