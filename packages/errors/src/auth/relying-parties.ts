import type { ErrorDefinition } from '../catalogue.js';

/**
 * The auth catalogue's errnos 162–199: OAuth clients, scopes, PKCE and authorization codes,
 * refresh tokens, subscriptions and payments. Add new errors at the end of the range.
 */
export const RELYING_PARTY_ERRORS = {
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
} as const satisfies Record<string, ErrorDefinition>;
