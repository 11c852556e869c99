import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { AuthErrorName } from '@tessera/errors';
import { credentialsOf } from '../../../http/auth.js';
import { operation, registerOperation } from '../../../http/operation.js';
import { oauthResponses } from '../../../http/responses.js';
import { StringEnum } from '../../../http/schemas.js';
import type { PublicJwk } from '../../../platform/keys/index.js';
import { Assertion, refuseAssertion } from '../assertion.js';
import { hex, OAUTH_ERRNOS_NOTE, ppidSeed, scope } from '../wire.js';
import type { IssuedTokens } from './grant.js';
import type { GrantsService } from './service.js';
import { type ACCESS_TOKEN_TYPE, REFRESH_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from './token-exchange.js';

// POST /oauth/token and /token (spec 2 §7): one operation, two doors — the auth-server path, which
// also takes a session (the fxa-credentials grant, a public client's token exchange), and the
// OAuth-server path with its errnos. JSON or form-encoded bodies (form-body.ts), client secrets by
// Basic or in the body. And GET /jwks.

const TAG = 'OAuth';

const TokenBody = Type.Object({
  grant_type: Type.Optional(StringEnum(['authorization_code', 'refresh_token', 'fxa-credentials', TOKEN_EXCHANGE_GRANT], { description: `Default \`authorization_code\`. \`fxa-credentials\` (POST /oauth/token only, with a session token): first-party clients registered with canGrant. \`${TOKEN_EXCHANGE_GRANT}\` (RFC 8693): a canGrant client trades its refresh token for one with more scopes.` })),
  access_type: Type.Optional(StringEnum(['online', 'offline'], { description: 'fxa-credentials: `offline` also issues a refresh token.' })),
  client_id: Type.Optional(hex(16, 'Required unless Basic credentials name the client.')),
  client_secret: Type.Optional(hex(64, 'A confidential client\'s secret, when not sent with Basic.')),
  code: Type.Optional(hex(64, 'authorization_code: the code.')),
  code_verifier: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._~-]{43,128}$', description: 'authorization_code: the PKCE verifier.' })),
  redirect_uri: Type.Optional(Type.String({ maxLength: 256, description: 'authorization_code: the redirect_uri of the authorization request, when it named one.' })),
  refresh_token: Type.Optional(Type.String({ maxLength: 128, description: 'refresh_token: the token.' })),
  scope: Type.Optional(scope),
  ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400, description: 'Seconds the access token should live; capped by the client\'s lifetime.' })),
  subject_token: Type.Optional(Type.String({ maxLength: 128, description: 'token exchange: the client\'s refresh token to exchange (it stops working).' })),
  subject_token_type: Type.Optional(StringEnum([REFRESH_TOKEN_TYPE], { description: `token exchange: \`${REFRESH_TOKEN_TYPE}\`, the only type exchanged.` })),
  ppid_seed: Type.Optional(ppidSeed('Clients registered with pairwise subjects: 0–1024 mixed into the pairwise `sub`. authorization_code: default the seed of the authorization request, else 0; refresh_token: default 0.')),
  resource: Type.Optional(Type.String({
    maxLength: 256, pattern: '^[A-Za-z][A-Za-z0-9+.-]*:[^#\\s]*$',
    description: 'RFC 8707: the absolute URI (no fragment) of the resource server the tokens are for, one the client is registered for (`allowedResources`, exact match; else `invalid_target`). The id_token\'s `aud` becomes `[client_id, resource]`, and so does a JWT access token\'s.',
  })),
}, { additionalProperties: false });

/** The OAuth-server path also takes `assertion` (protocol.md §5.15), never honoured (assertion.ts). */
const TokenServerBody = Type.Object({ ...TokenBody.properties, assertion: Assertion }, { additionalProperties: false });

const TokenReply = Type.Object({
  access_token: Type.String({
    pattern: '^([0-9a-f]{64}|[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)$',
    description: '64 hex; for clients registered with JWT access tokens an RS256 JWT (RFC 9068, `typ` at+jwt) signed with a key of /jwks.',
  }),
  token_type: Type.Literal('bearer'),
  scope: Type.String({ description: 'Space-separated.' }),
  expires_in: Type.Integer({ maximum: 86_400, description: 'Seconds.' }),
  auth_at: Type.Integer({ description: 'When the person signed in, seconds since the epoch.' }),
  refresh_token: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  id_token: Type.Optional(Type.String({ description: 'With scope `openid`: an RS256 JWT signed with a key of /jwks.' })),
  keys_jwe: Type.Optional(Type.String({ description: 'The scoped-key bundle the authorization request carried, once.' })),
  issued_token_type: Type.Optional(Type.Literal('urn:ietf:params:oauth:token-type:access_token', { description: 'Token exchange only (RFC 8693 §2.2.1): what `access_token` is.' })),
});

const Jwks = Type.Object({
  keys: Type.Array(Type.Object({
    kty: Type.Literal('RSA'), alg: Type.Literal('RS256'), use: Type.Literal('sig'), kid: Type.String(), n: Type.String(), e: Type.String(),
    'fxa-createdAt': Type.Integer(),
  })),
});

const TOKEN_ERRORS = ['UNKNOWN_CLIENT_ID', 'INCORRECT_CLIENT_SECRET', 'UNKNOWN_AUTHORIZATION_CODE', 'MISMATCH_AUTHORIZATION_CODE',
  'EXPIRED_AUTHORIZATION_CODE', 'MISSING_PKCE_PARAMETERS', 'INVALID_PKCE_CHALLENGE', 'INCORRECT_REDIRECT_URI', 'REFRESH_TOKEN_UNKNOWN', 'INVALID_SCOPES',
  'INVALID_TARGET', 'INSUFFICIENT_AAL'] as const satisfies AuthErrorName[];

const TOKEN_DESCRIPTION = [
  'Trades an authorization code, or a refresh token, for an access token. Bodies may be JSON or `application/x-www-form-urlencoded`.',
  'A confidential client authenticates with `Authorization: Basic` (client_secret_basic) or `client_secret` in the body (client_secret_post), never both; a wrong secret answers 400/171. A public client sends no secret.',
  '`authorization_code`: unknown code 400/172, another client\'s 400/173, expired 400/174, PKCE verifier missing 400/169 or not matching 400/175, redirect_uri differing from the authorization request\'s 400/167. A code is single use: a second use answers 400/172 and revokes the access and refresh tokens the first use issued.',
  '`fxa-credentials` (POST /oauth/token with a session token): for first-party clients registered with canGrant; the session authorizes directly, `access_type=offline` adds a refresh token. The session must be confirmed (400/138) on a confirmed account (400/104), and on an account with two-step authentication confirmed by the second factor (400/222, as /oauth/authorization answers). A refresh grant made before the account turned two-step on keeps working: it is the same grant, not a new one. `refresh_token`: unknown, revoked, expired or another client\'s token 400/182; `scope` may narrow the grant, never widen it (400/163). Clients registered with refresh-token rotation get a new refresh token each time and the one used stops working; presenting a replaced token again (a copy, or the loser of two concurrent refreshes: there is no grace period) ends its grant, the current refresh token and every access token of it, and answers as for an unknown token (RFC 9700 §4.14.2 reuse detection).',
  `Token exchange (\`grant_type=${TOKEN_EXCHANGE_GRANT}\`, RFC 8693): a client registered with canGrant sends its refresh token as \`subject_token\` with \`subject_token_type=${REFRESH_TOKEN_TYPE}\` and the scopes to add as \`scope\` (required); it gets an access token and a new refresh token for the union of the scopes, and the refresh token sent stops working (of two exchanges of one token, one succeeds); presenting it again, here or as a refresh, ends the grant as a replaced rotated token does. Unknown, revoked, expired or another client's subject token 400/182; a client without canGrant, a scope the client is not allowed, or a scope carrying a scoped key not already granted 400/163. A confidential client authenticates with its secret; a public client, which has none, must send the request to POST /oauth/token with the session token of the refresh token's account (Hawk), confirmed at the account's AAL (RFC 8693 §5: without client authentication the token alone would be enough): without one 401/110 (401/104 on /token), another account's session 400/182, an unconfirmed one 400/138, one below the account's AAL 400/222. On an account with two-step authentication, a grant made without the second factor is not widened (400/222). The answer adds \`issued_token_type\`.`,
  'The answer has `token_type` bearer, `scope` (space-separated), `expires_in` (seconds, ≤ 86400, the client\'s lifetime by default), `auth_at`, `refresh_token` with `access_type=offline`, `id_token` with scope `openid`, and `keys_jwe` when the authorization request carried one.',
  'Clients registered with pairwise subjects get as `sub` a pairwise id (32 hex) that depends on the client, the account, `ppid_seed` and, if the client rotates them, the period; clients registered with JWT access tokens get `access_token` as an RS256 JWT (`typ` at+jwt). `resource` (an absolute URI without fragment, else 400/109 or 400/107) must be one of the resources the client is registered for (`allowedResources`, compared exactly; else `invalid_target`, 400/224, 400/122 on /token, RFC 8707 §2), and adds that URI to the `aud` of the id_token and of a JWT access token.',
].join(' ');

const TOKEN_DESCRIPTION_OAUTH = `${TOKEN_DESCRIPTION} An \`assertion\` (50–10240 characters) is accepted by the schema and never honoured: Tessera issues no identity assertions; it answers 401/104 saying to use the fxa-credentials grant on POST /oauth/token with a Hawk-signed session token, and so does \`grant_type=fxa-credentials\` on this path. ${OAUTH_ERRNOS_NOTE}`;

/** The token answer on the wire (RFC 6749 §5.1): snake_case, scope space-separated, auth_at in seconds. */
function tokenReply(t: IssuedTokens): Static<typeof TokenReply> {
  return {
    access_token: t.accessToken, token_type: 'bearer', scope: t.scope.join(' '), expires_in: t.expiresIn, auth_at: Math.floor(t.authAt / 1000),
    ...(t.refreshToken ? { refresh_token: t.refreshToken } : {}), ...(t.idToken ? { id_token: t.idToken } : {}), ...(t.keysJwe ? { keys_jwe: t.keysJwe } : {}),
    ...(t.issuedTokenType ? { issued_token_type: t.issuedTokenType as typeof ACCESS_TOKEN_TYPE } : {}),
  };
}

export const grantRoutes: FastifyPluginAsyncTypebox<{ grants: GrantsService; jwks: PublicJwk[] }> = async (app, { grants, jwks }) => {
  registerOperation(app, operation({
    tags: [TAG], summary: 'Get tokens', description: TOKEN_DESCRIPTION,
    input: { body: TokenBody },
    output: TokenReply,
    errors: [...TOKEN_ERRORS],
    rateLimit: { actions: ['oauthToken'] },
    handle: async ({ body, caller, request }) => tokenReply(await grants.token(body, caller.authorization, caller.session, request)),
    doors: [
      {
        method: 'POST', path: '/oauth/token', operationId: 'oauthToken', errors: ['SESSION_UNVERIFIED', 'ACCOUNT_UNVERIFIED'],
        // A session is optional (the fxa-credentials grant); a Basic header is client authentication.
        auth: {
          strategies: ['sessionToken'], optional: true, clientBasic: true,
          unconfirmed: 'The session is optional and only two grants use it, each checking its state itself: fxa-credentials needs it confirmed at the account\'s AAL (400/138, 400/222), and a public client\'s token exchange the same, for the account of the refresh token.',
        },
        caller: (req) => ({ authorization: req.headers.authorization, session: req.auth?.strategy === 'sessionToken' ? credentialsOf(req, 'sessionToken') : null }),
      },
      {
        method: 'POST', path: '/token', operationId: 'token', auth: 'none', catalogue: 'oauth', assertion: true, grantType: true, errors: ['INVALID_TOKEN'],
        summary: 'Get tokens (OAuth server path)', description: TOKEN_DESCRIPTION_OAUTH,
        caller: (req) => ({ authorization: req.headers.authorization, session: null }),
        wire: { body: TokenServerBody, input: ({ body }) => ({ body: refuseAssertion(body as Static<typeof TokenServerBody>) }) },
      },
    ],
  }));

  app.get('/jwks', {
    config: { auth: 'none', catalogue: 'oauth' },
    schema: {
      operationId: 'jwks', tags: [TAG], summary: 'The keys that sign id_tokens and JWT access tokens',
      description: 'A JWK Set (RFC 7517) of the RSA keys whose signatures on id_tokens and JWT access tokens are valid (`kid` names the key in a token\'s header): the current key, and during a rotation the next key (OAUTH_NEXT_SIGNING_KEY_FILE) and the previous one (OAUTH_PREVIOUS_SIGNING_KEY_FILE).',
      response: oauthResponses(Jwks, []),
    },
  }, async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return { keys: jwks };
  });
};
