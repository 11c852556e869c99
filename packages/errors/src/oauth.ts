import type { AuthErrorName } from './auth.js';
import type { ErrorDefinition } from './catalogue.js';

/**
 * The OAuth server's own error catalogue (spec 2 §8, "OAuth server"; protocol.md §6). The OAuth
 * server's calls (/authorization, /token, /introspect, /verify, /destroy, /jwks, /client/{id},
 * /authorized-clients, /key-data) answer from it; their auth-server twins under /oauth/ answer from
 * the auth catalogue. The numbers overlap the auth catalogue's on purpose, so an error is named by
 * catalogue and name together. Numbers are frozen: add at the end, never renumber, never reuse.
 */
export const OAUTH_ERRORS = {
  UNKNOWN_CLIENT: {
    errno: 101, status: 400, message: 'Unknown client: no OAuth client is registered with this client_id', extras: ['clientId'],
    description: 'The `client_id` names no registered client. Check the id the operator registered for you (16 hex characters).',
  },
  INCORRECT_SECRET: {
    errno: 102, status: 400, message: 'Incorrect client secret', extras: ['clientId'],
    description: 'A confidential client\'s secret (Basic or `client_secret`) does not match the current or the previous secret. After a rotation, use the new one.',
  },
  INCORRECT_REDIRECT: {
    errno: 103, status: 400, message: 'Incorrect redirect_uri: it must match a registered redirect URI exactly', extras: ['redirectUri'],
    description: 'The `redirect_uri` is not one the client registered (exact match; loopback redirects may use any port), or at /token it differs from the authorization request\'s.',
  },
  INVALID_ASSERTION: {
    errno: 104, status: 401, message: 'Invalid assertion: Tessera authorizes this call with a session token signed with Hawk, not an identity assertion, and that session token is missing, unknown, expired or not valid for it', extras: ['detail'],
    description: 'Tessera issues no identity assertions and accepts none: the signed-in session token, sent as a Hawk-signed request, stands for the person where other servers take an `assertion`. The session token is missing (an `assertion` was sent instead, or nothing), unknown or expired: sign the request with Hawk using the session token, or sign in again.',
  },
  UNKNOWN_CODE: {
    errno: 105, status: 400, message: 'Unknown authorization code',
    description: 'The code was never issued, was already used (reuse also revokes what its first use issued), or was revoked. Start a new authorization.',
  },
  INCORRECT_CODE: {
    errno: 106, status: 400, message: 'Incorrect authorization code: it was issued to another client',
    description: 'The code exists but belongs to a different `client_id`.',
  },
  EXPIRED_CODE: {
    errno: 107, status: 400, message: 'Expired authorization code: codes are valid for 15 minutes',
    description: 'Trade codes for tokens at once; start a new authorization.',
  },
  INVALID_TOKEN: {
    errno: 108, status: 400, message: 'Invalid token: unknown, expired, revoked or another client\'s', extras: ['detail'],
    description: 'The access or refresh token sent is not a live token of this client. For a refresh token, start a new authorization.',
  },
  INVALID_PARAMETER: {
    errno: 109, status: 400, message: 'Invalid request parameter', extras: ['validation', 'param'],
    description: 'A field breaks a validation rule, is missing, is sent twice, or the body is not valid JSON or form data; `validation` names the source, the field and the rule.',
  },
  INVALID_RESPONSE_TYPE: {
    errno: 110, status: 400, message: 'Invalid response_type: only `code` is supported',
    description: 'The implicit flow (`response_type=token`) is not offered. Use the authorization-code flow with PKCE.',
  },
  UNAUTHORIZED: {
    errno: 111, status: 401, message: 'Unauthorized: the request signature does not verify', extras: ['detail', 'serverTime'],
    description: 'The Hawk signature, timestamp or nonce of the signed request is wrong (a replay, a clock off by more than the allowed skew: adjust by `serverTime`).',
  },
  FORBIDDEN: {
    errno: 112, status: 403, message: 'Forbidden: confirm the account and the sign-in first',
    description: 'The session or the account is not confirmed yet. Finish the email or two-step confirmation, then retry.',
  },
  INVALID_CONTENT_TYPE: {
    errno: 113, status: 415, message: 'Invalid content type: send application/json or application/x-www-form-urlencoded',
    description: 'The body\'s `Content-Type` is not one the OAuth server reads.',
  },
  INVALID_SCOPES: {
    errno: 114, status: 400, message: 'Invalid scopes: the client is not allowed some of the requested scopes', extras: ['invalidScopes'],
    description: 'Ask only for scopes the client is registered for; a refresh may narrow the grant\'s scopes, never widen them. `invalidScopes` lists the refused ones.',
  },
  EXPIRED_TOKEN: {
    errno: 115, status: 400, message: 'Expired token',
    description: 'The token was valid once and has expired. Refresh it, or start a new authorization.',
  },
  NOT_PUBLIC_CLIENT: {
    errno: 116, status: 400, message: 'Not a public client: this call is for public (PKCE) clients only', extras: ['clientId'],
    description: 'The call is reserved to public clients; a confidential client authenticates with its secret instead.',
  },
  INCORRECT_CODE_CHALLENGE: {
    errno: 117, status: 400, message: 'Incorrect code_verifier: it does not match the code_challenge of the authorization request',
    description: 'PKCE (RFC 7636, S256): send the verifier whose SHA-256, base64url-encoded, is the challenge sent with the authorization request.',
  },
  MISSING_PKCE_PARAMETERS: {
    errno: 118, status: 400, message: 'PKCE parameters missing: public clients must send code_challenge (S256) and code_verifier',
    description: 'A public client sends `code_challenge` with method `S256` to /authorization and the `code_verifier` to /token.',
  },
  STALE_AUTHENTICATION: {
    errno: 119, status: 400, message: 'Stale authentication timestamp: sign in again', extras: ['authAt'],
    description: 'The session signed in before the account\'s keys last changed, so it cannot hand out scoped keys. Sign in again.',
  },
  MISMATCH_ACR_VALUES: {
    errno: 120, status: 400, message: 'Mismatched acr_values: the session does not satisfy the requested authentication context',
    description: '`acr_values=AAL2` needs a session confirmed with two-step authentication.',
  },
  INVALID_GRANT_TYPE: {
    errno: 121, status: 400, message: 'Invalid grant_type: use authorization_code, refresh_token, fxa-credentials or urn:ietf:params:oauth:grant-type:token-exchange', extras: ['validation'],
    description: 'The `grant_type` is not one this server supports.',
  },
  INVALID_TARGET: {
    errno: 122, status: 400, error: 'invalid_target', message: 'Invalid target: this client may not name this resource', extras: ['resource'],
    description: 'RFC 8707 §2: the `resource` of a token request is not one of the resources the client is registered for (`allowedResources`). Name one of those, or none.',
  },
  INTERNAL_ERROR: {
    errno: 999, status: 500, message: 'Internal error', extras: ['requestId'],
    description: 'An unexpected failure on the server; the body carries the request id the server logged it under. Report it with that id.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type OAuthErrorName = keyof typeof OAUTH_ERRORS;

/**
 * How an auth-catalogue error thrown by shared code (the OAuth services, validation, the session
 * strategy) is answered on an OAuth-server route. Errors not listed (429/114 rate limiting, 413,
 * 411, 503, 404) have no OAuth twin and keep the shared auth-catalogue shape on every route.
 */
export const OAUTH_TWINS = {
  UNKNOWN_CLIENT_ID: 'UNKNOWN_CLIENT',
  INCORRECT_CLIENT_SECRET: 'INCORRECT_SECRET',
  INCORRECT_REDIRECT_URI: 'INCORRECT_REDIRECT',
  UNKNOWN_AUTHORIZATION_CODE: 'UNKNOWN_CODE',
  MISMATCH_AUTHORIZATION_CODE: 'INCORRECT_CODE',
  EXPIRED_AUTHORIZATION_CODE: 'EXPIRED_CODE',
  INVALID_TOKEN: 'INVALID_TOKEN',
  REFRESH_TOKEN_UNKNOWN: 'INVALID_TOKEN',
  INVALID_PARAMETER: 'INVALID_PARAMETER',
  MISSING_PARAMETER: 'INVALID_PARAMETER',
  INVALID_JSON: 'INVALID_PARAMETER',
  MALFORMED_REQUEST: 'INVALID_PARAMETER',
  INVALID_RESPONSE_TYPE: 'INVALID_RESPONSE_TYPE',
  INVALID_REQUEST_SIGNATURE: 'UNAUTHORIZED',
  INVALID_TIMESTAMP: 'UNAUTHORIZED',
  INVALID_NONCE: 'UNAUTHORIZED',
  SESSION_UNVERIFIED: 'FORBIDDEN',
  ACCOUNT_UNVERIFIED: 'FORBIDDEN',
  UNSUPPORTED_MEDIA_TYPE: 'INVALID_CONTENT_TYPE',
  INVALID_SCOPES: 'INVALID_SCOPES',
  NOT_PUBLIC_CLIENT: 'NOT_PUBLIC_CLIENT',
  INVALID_PKCE_CHALLENGE: 'INCORRECT_CODE_CHALLENGE',
  MISSING_PKCE_PARAMETERS: 'MISSING_PKCE_PARAMETERS',
  STALE_AUTH_AT: 'STALE_AUTHENTICATION',
  INSUFFICIENT_ACR_VALUES: 'MISMATCH_ACR_VALUES',
  INVALID_TARGET: 'INVALID_TARGET',
  UNEXPECTED_ERROR: 'INTERNAL_ERROR',
} as const satisfies Partial<Record<AuthErrorName, OAuthErrorName>>;

export interface OAuthTwinContext {
  /** The route authenticates the person with a session token: an invalid token is an invalid assertion. */
  session?: boolean;
  /** The fields a validation failure names (`validation.keys`): `grant_type` has its own errno. */
  validationKeys?: readonly string[];
}

/** The OAuth-catalogue name an auth-catalogue error is answered with on an OAuth-server route, or null (no twin). */
export function oauthTwin(name: string, context: OAuthTwinContext = {}): OAuthErrorName | null {
  const twin = (OAUTH_TWINS as Record<string, OAuthErrorName>)[name];
  if (!twin) return null;
  if (twin === 'INVALID_TOKEN' && name === 'INVALID_TOKEN' && context.session) return 'INVALID_ASSERTION';
  if (twin === 'INVALID_PARAMETER' && context.validationKeys?.includes('grant_type')) return 'INVALID_GRANT_TYPE';
  return twin;
}
