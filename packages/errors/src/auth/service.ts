import type { ErrorDefinition } from '../catalogue.js';

/**
 * The auth catalogue's errnos 201–224, 998, 999: the server and its backends, third-party
 * accounts, passwordless accounts, recovery phones, assurance levels and MFA tokens; then the
 * catch-alls. Add new errors at the end of the range.
 */
export const SERVICE_ERRORS = {
  SERVER_BUSY: {
    errno: 201, status: 503, message: 'Service unavailable', extras: ['retryAfter'],
    description: 'The server is overloaded. Wait `retryAfter` seconds (also in Retry-After) before retrying.',
  },
  FEATURE_NOT_ENABLED: {
    errno: 202, status: 503, message: 'Feature not enabled', extras: ['retryAfter'],
    description: 'The feature is switched off on this server.',
  },
  BACKEND_SERVICE_FAILURE: {
    errno: 203, status: 500, message: 'System unavailable, try again soon', extras: ['service', 'operation'],
    description: 'A service the server depends on failed.',
  },
  DISABLED_CLIENT_ID: {
    errno: 204, status: 503, message: 'This client has been temporarily disabled', extras: ['clientId', 'retryAfter'],
    description: 'New connections for this client are paused.',
  },
  THIRD_PARTY_ACCOUNT_ERROR: {
    errno: 205, status: 500, message: 'Could not login with third party account, please try again later',
    description: 'Google or Apple sign-in failed.',
  },
  CANNOT_CREATE_PASSWORD: {
    errno: 206, status: 400, message: 'Can not create password, password already set',
    description: 'The account has a password; use password change.',
  },
  ACCOUNT_CREATION_REJECTED: {
    errno: 207, status: 400, message: 'Account creation rejected',
    description: 'The address\'s domain cannot receive mail or is not allowed.',
  },
  IAP_PURCHASE_ALREADY_REGISTERED: {
    errno: 208, status: 403, message: 'Purchase has been registered to another user',
    description: 'The store purchase belongs to another account.',
  },
  UNABLE_TO_LOGIN_NO_PASSWORD_SET: {
    errno: 210, status: 400, message: 'Complete account setup, please reset password to continue',
    description: 'The account has no password (stub or linked account); set one first.',
  },
  RECOVERY_PHONE_NUMBER_ALREADY_EXISTS: {
    errno: 214, status: 400, message: 'Recovery phone number already exists',
    description: 'The account already has this recovery phone, or has one and the call adds, not changes (use /mfa/recovery_phone/change).',
  },
  RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST: {
    errno: 215, status: 400, message: 'Recovery phone number does not exist',
    description: 'The account has no recovery phone, or no number is waiting for its code.',
  },
  RECOVERY_PHONE_BACKUP_CODES_REQUIRED: {
    errno: 216, status: 400, message: 'Backup codes are required before adding a recovery phone',
    description: 'Turn two-step authentication on and keep at least one backup code before adding a phone.',
  },
  RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED: {
    errno: 217, status: 400, message: 'This phone number is the recovery phone of too many accounts',
    description: 'A number may be the recovery phone of at most five accounts.',
  },
  INSUFFICIENT_AAL: {
    errno: 222, status: 400, message: 'This request requires a higher authentication level',
    description: 'Verify the session with the second factor (AAL2) first.',
  },
  INVALID_MFA_TOKEN: {
    errno: 223, status: 401, message: 'Invalid or expired MFA token',
    description: 'Request a new step-up token with /mfa/otp/request.',
  },
  INVALID_TARGET: {
    errno: 224, status: 400, error: 'invalid_target', message: 'Invalid target: this client may not name this resource', extras: ['resource'],
    description: 'RFC 8707 §2: the `resource` of a token request is not one of the resources the client is registered for (`allowedResources`). Name one of those, or none; the operator adds resources with `npm run admin -- clients add --resource`.',
  },
  INTERNAL_VALIDATION_ERROR: {
    errno: 998, status: 500, message: 'An internal validation check failed', extras: ['op', 'data'],
    description: 'The server produced a response that breaks its own schema; report it with the request id.',
  },
  ENDPOINT_NOT_FOUND: {
    errno: 999, status: 404, message: 'Unknown endpoint',
    description: 'No route has this path (a path that exists, asked with another method, is 405 errno 999). All API routes are under /v1.',
  },
  MALFORMED_REQUEST: {
    errno: 999, status: 400, otherStatuses: [405, 406, 408, 414, 416, 417, 421, 426, 428, 431], message: 'Malformed request',
    description: 'The HTTP request itself could not be understood: a bad URL escape, a method without the headers it needs, headers or a request line too large (431), conflicting length headers, a body cut short; or a path that exists asked with a method it does not have (405, with an `Allow` header listing the methods it has). Nothing was done; fix the request.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    errno: 999, status: 415, message: 'Unsupported content type: send application/json',
    description: 'Request bodies must be JSON.',
  },
  UNEXPECTED_ERROR: {
    errno: 999, status: 500, message: 'Unspecified error', extras: ['requestId'],
    description: 'Something unexpected failed. The body carries a request id that the server logged with the details.',
  },
} as const satisfies Record<string, ErrorDefinition>;
