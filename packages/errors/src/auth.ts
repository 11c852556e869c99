import type { ErrorDefinition } from './catalogue.js';

/**
 * The auth server's error catalogue (spec 2 §8; errnos and extras from protocol.md §6).
 * Numbers are frozen: clients switch on them. Add new errors at the end of their range, never
 * renumber, never reuse. The portal's error reference page is generated from this object.
 */
export const AUTH_ERRORS = {
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
  INVALID_REGION: {
    errno: 130, status: 400, message: 'Invalid region', extras: ['region'],
    description: 'SMS is not available for this number\'s region.',
  },
  INVALID_MESSAGE_ID: {
    errno: 131, status: 400, message: 'Invalid message id',
    description: 'The message id is not one this server sends.',
  },
  MESSAGE_REJECTED: {
    errno: 132, status: 500, message: 'Message rejected', extras: ['reason', 'reasonCode'],
    description: 'The SMS provider refused the message.',
  },
  BOUNCE_COMPLAINT: {
    errno: 133, status: 400, message: 'Email account sent complaint', extras: ['bouncedAt'],
    description: 'The recipient marked a previous message as spam; no more mail is sent to this address.',
  },
  BOUNCE_HARD: {
    errno: 134, status: 400, message: 'Email account hard bounced', extras: ['bouncedAt'],
    description: 'The address does not exist; no more mail is sent to it.',
  },
  BOUNCE_SOFT: {
    errno: 135, status: 400, message: 'Email account soft bounced', extras: ['bouncedAt'],
    description: 'Recent mail to the address bounced temporarily; sending is paused.',
  },
  EMAIL_EXISTS: {
    errno: 136, status: 400, message: 'Email already exists',
    description: 'The address is already on this account.',
  },
  EMAIL_DELETE_PRIMARY: {
    errno: 137, status: 400, message: 'Can not delete primary email',
    description: 'Make another verified address primary first.',
  },
  SESSION_UNVERIFIED: {
    errno: 138, status: 400, message: 'Unconfirmed session',
    description: 'The route needs a confirmed session; confirm the sign-in first.',
  },
  USER_PRIMARY_EMAIL_EXISTS: {
    errno: 139, status: 400, message: 'Can not add secondary email that is same as your primary',
    description: 'The secondary address is the account\'s primary address.',
  },
  VERIFIED_PRIMARY_EMAIL_EXISTS: {
    errno: 140, status: 400, message: 'Email already exists',
    description: 'The address is the verified primary address of another account.',
  },
  UNVERIFIED_PRIMARY_EMAIL_EXISTS: {
    errno: 141, status: 400, message: 'Email already exists',
    description: 'The address is the unverified primary address of another, recent account.',
  },
  LOGIN_WITH_SECONDARY_EMAIL: {
    errno: 142, status: 400, message: 'Sign in with this email type is not currently supported',
    description: 'Sign in with the primary address.',
  },
  SECONDARY_EMAIL_UNKNOWN: {
    errno: 143, status: 400, message: 'Unknown email',
    description: 'The address is not on this account.',
  },
  VERIFIED_SECONDARY_EMAIL_EXISTS: {
    errno: 144, status: 400, message: 'Email already exists',
    description: 'The address is a verified secondary address of an account.',
  },
  RESET_PASSWORD_WITH_SECONDARY_EMAIL: {
    errno: 145, status: 400, message: 'Reset password with this email type is not currently supported',
    description: 'Start the reset with the primary address.',
  },
  INVALID_SIGNIN_CODE: {
    errno: 146, status: 400, message: 'Invalid signin code',
    description: 'The sign-in code is unknown or expired.',
  },
  CHANGE_EMAIL_TO_UNVERIFIED_EMAIL: {
    errno: 147, status: 400, message: 'Can not change primary email to an unverified email',
    description: 'Verify the secondary address before making it primary.',
  },
  CHANGE_EMAIL_TO_UNOWNED_EMAIL: {
    errno: 148, status: 400, message: 'Can not change primary email to an email that does not belong to this account',
    description: 'The address is not on this account.',
  },
  LOGIN_WITH_INVALID_EMAIL: {
    errno: 149, status: 400, message: 'This email can not currently be used to login',
    description: 'The account is disabled or the address cannot sign in.',
  },
  RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL: {
    errno: 150, status: 400, message: 'Can not resend email code to an email that does not belong to this account',
    description: 'The address is not on this account.',
  },
  FAILED_TO_SEND_EMAIL: {
    errno: 151, status: 422, otherStatuses: [500], message: 'Failed to send email',
    description: '422: the mail server refused the message or the address; 500: the mail server could not be reached. Nothing was changed; retry later.',
  },
  INVALID_TOKEN_VERIFICATION_CODE: {
    errno: 152, status: 400, message: 'Invalid token confirmation code',
    description: 'The confirmation code does not match.',
  },
  EXPIRED_TOKEN_VERIFICATION_CODE: {
    errno: 153, status: 400, message: 'Expired token confirmation code',
    description: 'The code is past its lifetime; request a new one.',
  },
  TOTP_TOKEN_EXISTS: {
    errno: 154, status: 400, message: 'TOTP token already exists for this account',
    description: 'Remove or replace the existing authenticator first.',
  },
  TOTP_TOKEN_NOT_FOUND: {
    errno: 155, status: 400, message: 'TOTP token not found',
    description: 'The account has no authenticator.',
  },
  RECOVERY_CODE_NOT_FOUND: {
    errno: 156, status: 400, message: 'Backup authentication code not found',
    description: 'The backup code is unknown or already used.',
  },
  DEVICE_COMMAND_UNAVAILABLE: {
    errno: 157, status: 400, message: 'Unavailable device command',
    description: 'The target device does not advertise this command.',
  },
  RECOVERY_KEY_NOT_FOUND: {
    errno: 158, status: 400, message: 'Account recovery key not found',
    description: 'No recovery key with this id exists for the account.',
  },
  RECOVERY_KEY_INVALID: {
    errno: 159, status: 400, message: 'Account recovery key is not valid',
    description: 'The recovery key does not match.',
  },
  TOTP_REQUIRED: {
    errno: 160, status: 400, message: 'This request requires two step authentication enabled on your account',
    description: 'verificationMethod totp-2fa was asked for an account without an authenticator.',
  },
  RECOVERY_KEY_EXISTS: {
    errno: 161, status: 400, message: 'Account recovery key already exists',
    description: 'Pass replaceKey to replace it.',
  },
  UNKNOWN_CLIENT_ID: {
    errno: 162, status: 400, message: 'Unknown client_id', extras: ['clientId'],
    description: 'No OAuth client has this id.',
  },
  INVALID_SCOPES: {
    errno: 163, status: 400, message: 'Requested scopes are not allowed', extras: ['invalidScopes'],
    description: 'The client may not request these scopes.',
  },
  STALE_AUTH_AT: {
    errno: 164, status: 401, message: 'Stale authentication timestamp', extras: ['authAt'],
    description: 'Keys changed after this session authenticated; sign in again.',
  },
  REDIS_CONFLICT: {
    errno: 165, status: 409, message: 'Redis WATCH detected a conflicting update',
    description: 'A concurrent update won; retry.',
  },
  NOT_PUBLIC_CLIENT: {
    errno: 166, status: 400, message: 'Not a public client',
    description: 'PKCE-only flows need a public client.',
  },
  INCORRECT_REDIRECT_URI: {
    errno: 167, status: 400, message: 'Incorrect redirect_uri', extras: ['redirectUri'],
    description: 'redirect_uri must equal the client\'s registered one exactly.',
  },
  INVALID_RESPONSE_TYPE: {
    errno: 168, status: 400, message: 'Invalid response_type',
    description: 'Only `code` is supported here.',
  },
  MISSING_PKCE_PARAMETERS: {
    errno: 169, status: 400, message: 'Public clients require PKCE OAuth parameters',
    description: 'Send code_challenge and code_challenge_method=S256.',
  },
  INSUFFICIENT_ACR_VALUES: {
    errno: 170, status: 400, message: 'Required Authentication Context Reference values could not be satisfied', extras: ['foundValue'],
    description: 'acr_values asked for AAL2 but the session is AAL1.',
  },
  INCORRECT_CLIENT_SECRET: {
    errno: 171, status: 400, message: 'Incorrect client_secret', extras: ['clientId'],
    description: 'The client secret does not match.',
  },
  UNKNOWN_AUTHORIZATION_CODE: {
    errno: 172, status: 400, message: 'Unknown authorization code',
    description: 'The code is unknown or already used.',
  },
  MISMATCH_AUTHORIZATION_CODE: {
    errno: 173, status: 400, message: 'Mismatched authorization code',
    description: 'The code was issued to another client.',
  },
  EXPIRED_AUTHORIZATION_CODE: {
    errno: 174, status: 400, message: 'Expired authorization code',
    description: 'Codes live about 15 minutes; start the flow again.',
  },
  INVALID_PKCE_CHALLENGE: {
    errno: 175, status: 400, message: 'Public clients require PKCE OAuth parameters',
    description: 'The code_verifier does not match the code_challenge.',
  },
  UNKNOWN_SUBSCRIPTION_CUSTOMER: {
    errno: 176, status: 404, message: 'Unknown customer for subscription',
    description: 'The account has no billing customer.',
  },
  UNKNOWN_SUBSCRIPTION: {
    errno: 177, status: 404, message: 'Unknown subscription',
    description: 'No such subscription for this account.',
  },
  UNKNOWN_SUBSCRIPTION_PLAN: {
    errno: 178, status: 400, message: 'Unknown subscription plan',
    description: 'No such plan.',
  },
  REJECTED_SUBSCRIPTION_PAYMENT_TOKEN: {
    errno: 179, status: 400, message: 'Subscription payment token rejected',
    description: 'The payment provider rejected the payment method.',
  },
  SUBSCRIPTION_ALREADY_CANCELLED: {
    errno: 180, status: 400, message: 'Subscription has already been cancelled',
    description: 'Nothing to cancel.',
  },
  REJECTED_CUSTOMER_UPDATE: {
    errno: 181, status: 400, message: 'Customer update rejected',
    description: 'The payment provider refused the update.',
  },
  REFRESH_TOKEN_UNKNOWN: {
    errno: 182, status: 400, message: 'Unknown refresh token',
    description: 'The refresh token is unknown or revoked.',
  },
  INVALID_EXPIRED_OTP_CODE: {
    errno: 183, status: 400, message: 'Invalid or expired confirmation code',
    description: 'The code is wrong or past its lifetime; request a new one after too many tries.',
  },
  SUBSCRIPTION_ALREADY_CHANGED: {
    errno: 184, status: 400, message: 'Subscription has already been cancelled',
    description: 'The subscription changed concurrently.',
  },
  INVALID_PLAN_UPDATE: {
    errno: 185, status: 400, message: 'Invalid plan update',
    description: 'The plan change is not allowed.',
  },
  PAYMENT_FAILED: {
    errno: 186, status: 400, message: 'Payment method failed',
    description: 'The charge failed; update the payment method.',
  },
  SUBSCRIPTION_ALREADY_EXISTS: {
    errno: 187, status: 409, message: 'User already subscribed',
    description: 'The account already has this subscription.',
  },
  UNKNOWN_SUBSCRIPTION_FOR_SOURCE: {
    errno: 188, status: 500, message: 'Unknown subscription for source',
    description: 'A payment event named a subscription the server does not know.',
  },
  BILLING_AGREEMENT_EXISTS: {
    errno: 192, status: 400, message: 'Billing agreement already on file',
    description: 'The customer already has a PayPal billing agreement.',
  },
  MISSING_PAYPAL_PAYMENT_TOKEN: {
    errno: 193, status: 400, message: 'PayPal payment token missing',
    description: 'Send the token from PayPal checkout.',
  },
  MISSING_PAYPAL_BILLING_AGREEMENT: {
    errno: 194, status: 400, message: 'PayPal billing agreement missing',
    description: 'The customer has no billing agreement.',
  },
  ACTIVE_SUBSCRIPTION_FOR_EMAIL: {
    errno: 195, status: 400, message: 'An active subscription already exists for this email',
    description: 'The address already has an active subscription.',
  },
  INVALID_INVOICE_TOKEN: {
    errno: 196, status: 400, message: 'Invalid token',
    description: 'The token does not match the invoice or payment flow.',
  },
  IAP_INTERNAL_OTHER: {
    errno: 197, status: 500, message: 'In-app purchase error',
    description: 'The app store answered unexpectedly.',
  },
  IAP_UNKNOWN_APPNAME: {
    errno: 198, status: 404, message: 'Unknown app name',
    description: 'No app with this name is configured.',
  },
  INVALID_PROMOTION_CODE: {
    errno: 199, status: 400, message: 'Invalid promotion code',
    description: 'The promotion code is unknown, expired or not valid for this price.',
  },
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

export type AuthErrorName = keyof typeof AUTH_ERRORS;
