import type { ErrorDefinition } from '../catalogue.js';

/**
 * The auth catalogue's errnos 100–129: accounts and their passwords, request bodies, Hawk
 * signatures and tokens, rate limits, devices, unblock codes. Add new errors at the end of the
 * range.
 */
export const REQUEST_ERRORS = {
  INVALID_PATCH_LEVEL: {
    errno: 100, status: 400, message: 'The database schema is at the wrong patch level',
    extras: ['level', 'levelRequired'],
    description: 'The server refused to run against a database whose migrations are newer or older than the code. Operators: run the matching server version.',
  },
  ACCOUNT_EXISTS: {
    errno: 101, status: 400, message: 'An account already exists for this email address', extras: ['email'],
    description: 'Sign-up with an address that already belongs to an account. Sign in instead.',
  },
  ACCOUNT_UNKNOWN: {
    errno: 102, status: 400, message: 'Unknown account', extras: ['email'],
    description: 'No account has this email address (or uid). Offer sign-up.',
  },
  INCORRECT_PASSWORD: {
    errno: 103, status: 400, message: 'Incorrect password', extras: ['email'],
    description: 'The authPW does not match either of the account\'s verifiers.',
  },
  ACCOUNT_UNVERIFIED: {
    errno: 104, status: 400, message: 'Unconfirmed account: confirm the email address or the sign-in first',
    description: 'Keys or other verified-only data were requested before the account email or the session was confirmed. The key fetch token is kept; retry after confirmation.',
  },
  INVALID_VERIFICATION_CODE: {
    errno: 105, status: 400, message: 'Invalid confirmation code', extras: ['tries', 'ttl'],
    description: 'The code does not match. For password-forgot codes the body says how many tries and how many seconds are left.',
  },
  INVALID_JSON: {
    errno: 106, status: 400, message: 'Invalid JSON in request body',
    description: 'The request body is not well-formed JSON. Send `Content-Type: application/json` with a JSON object.',
  },
  INVALID_PARAMETER: {
    errno: 107, status: 400, message: 'Invalid parameter in request body', extras: ['validation'],
    description: 'A field breaks a validation rule; `validation` names its source, the field and the rule.',
  },
  MISSING_PARAMETER: {
    errno: 108, status: 400, message: 'Missing parameter in request body', extras: ['param'],
    description: 'A required field is absent; `param` names it.',
  },
  INVALID_REQUEST_SIGNATURE: {
    errno: 109, status: 401, message: 'Invalid request signature', extras: ['detail'],
    description: 'The Hawk MAC or payload hash does not verify: sign with the token\'s authKey over the server\'s public host and port.',
  },
  INVALID_TOKEN: {
    errno: 110, status: 401, message: 'Invalid authentication token in request signature', extras: ['detail'],
    description: 'The token is missing, unknown, expired, already used, or of the wrong kind for this route.',
  },
  INVALID_TIMESTAMP: {
    errno: 111, status: 401, message: 'Invalid timestamp in request signature', extras: ['serverTime'],
    description: 'The Hawk `ts` is outside the allowed clock skew. Adjust by `serverTime` (seconds) and retry once.',
  },
  MISSING_CONTENT_LENGTH: {
    errno: 112, status: 411, message: 'Missing content-length header',
    description: 'A request with a body must declare its length.',
  },
  REQUEST_TOO_LARGE: {
    errno: 113, status: 413, message: 'Request body too large',
    description: 'The body is larger than the server accepts.',
  },
  THROTTLED: {
    errno: 114, status: 429, message: 'Client has sent too many requests',
    extras: ['retryAfter', 'retryAfterLocalized', 'verificationMethod', 'verificationReason'],
    description: 'A rate limit was hit. Wait `retryAfter` seconds (also in the Retry-After header), or unblock by email code when `verificationMethod` is `email-captcha`.',
  },
  INVALID_NONCE: {
    errno: 115, status: 401, message: 'Invalid nonce in request signature',
    description: 'The Hawk nonce was already used with this token inside the timestamp window: a replayed request.',
  },
  ENDPOINT_NOT_SUPPORTED: {
    errno: 116, status: 410, message: 'This endpoint is no longer supported',
    description: 'The route was retired.',
  },
  INCORRECT_EMAIL_CASE: {
    errno: 120, status: 400, message: 'Incorrect email case', extras: ['email'],
    description: 'The password was stretched with a different spelling of the address; `email` is the stored one. Stretch again with it and retry.',
  },
  DEVICE_UNKNOWN: {
    errno: 123, status: 400, message: 'Unknown device',
    description: 'No device with this id belongs to the account.',
  },
  DEVICE_CONFLICT: {
    errno: 124, status: 400, message: 'Session already registered by another device', extras: ['deviceId'],
    description: 'The session token already has a device record; update that device instead.',
  },
  REQUEST_BLOCKED: {
    errno: 125, status: 400, error: 'Request blocked', message: 'The request was blocked for security reasons',
    extras: ['verificationMethod', 'verificationReason'],
    description: 'The request looks abusive. With `verificationMethod: email-captcha`, send an unblock code and retry with it.',
  },
  ACCOUNT_RESET: {
    errno: 126, status: 400, message: 'Account must be reset', extras: ['email'],
    description: 'The account\'s password was invalidated; the user must reset it.',
  },
  INVALID_UNBLOCK_CODE: {
    errno: 127, status: 400, message: 'Invalid unblock code',
    description: 'The unblock code is wrong or older than one hour.',
  },
  INVALID_PHONE_NUMBER: {
    errno: 129, status: 400, message: 'Invalid phone number',
    description: 'The number is not a valid E.164 number.',
  },
} as const satisfies Record<string, ErrorDefinition>;
