import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { appError, type AuthErrorName } from '@tessera/errors';
import { credentialsOf } from '../../../http/auth.js';
import { contextOf } from '../../../http/context.js';
import { oauthResponses, responses } from '../../../http/responses.js';
import { StringEnum } from '../../../http/schemas.js';
import type { PublicJwk } from '../../../platform/keys/index.js';
import { Assertion, refuseAssertion, withoutAssertion } from './assertion.js';
import type { GrantsService } from './service.js';
import { REFRESH_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from './token-exchange.js';

// The authorization-code flow's routes (spec 2 §7): POST /authorization and /oauth/authorization on
// the session-token path, GET /authorization (the browser's entry, until the account web app
// exists a page saying so), POST /token and /oauth/token (JSON or form-encoded bodies, client
// secrets by Basic or in the body), and GET /jwks.

const TAG = 'OAuth';

const hex = (n: number, description: string) => Type.String({ pattern: `^[0-9a-fA-F]{${n}}$`, description });
const scope = Type.String({ maxLength: 256, pattern: '^[a-zA-Z0-9 _/.:#-]*$', description: 'Space-separated scopes, each one the client is allowed (`openid` always is).' });
const ppidSeed = (description: string) => Type.Integer({ minimum: 0, maximum: 1024, description });

const AuthorizationBody = Type.Object({
  client_id: hex(16, 'The relying party\'s client id.'),
  scope: Type.Optional(scope),
  state: Type.Optional(Type.String({ maxLength: 512, description: 'Opaque to Tessera; returned with the code.' })),
  redirect_uri: Type.Optional(Type.String({ maxLength: 256, description: 'One of the client\'s registered redirect URIs, exactly (loopback clients: any port). Default: the first registered. When sent, /token must repeat it.' })),
  response_type: Type.Optional(StringEnum(['code', 'token'], { description: '`code` (default). `token` (the implicit flow) is refused with 400/168.' })),
  code_challenge: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'PKCE (RFC 7636): base64url, no padding, of SHA-256 of the code_verifier. Required for public clients, accepted from confidential ones.' })),
  code_challenge_method: Type.Optional(StringEnum(['S256'], { description: 'Only `S256`; `plain` is refused.' })),
  access_type: Type.Optional(StringEnum(['online', 'offline'], { description: '`offline` also issues a refresh token.' })),
  acr_values: Type.Optional(Type.String({ maxLength: 256, description: '`AAL2` requires a session confirmed with two-step authentication (else 400/170).' })),
  keys_jwe: Type.Optional(Type.String({ maxLength: 1024, pattern: '^[A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]*){4}$', description: 'The scoped-key bundle encrypted to the relying party (compact JWE, five parts), returned once with the token.' })),
  nonce: Type.Optional(Type.String({ maxLength: 256, description: 'OpenID Connect: copied into the id_token.' })),
  ppid_seed: Type.Optional(ppidSeed('Clients registered with pairwise subjects: an integer 0–1024 mixed into the pairwise `sub` (default 0), kept with the code; a new seed gives the relying party a new, unlinkable id for the person. Ignored for other clients.')),
}, { additionalProperties: false });

/** The OAuth-server path also takes `assertion` (spec 2 §7), never honoured (assertion.ts). */
const AuthorizationServerBody = Type.Object({ ...AuthorizationBody.properties, assertion: Assertion }, { additionalProperties: false });

const AuthorizationReply = Type.Object({
  code: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Single use, 15 minutes.' }),
  state: Type.Optional(Type.String()),
  redirect: Type.String({ description: 'The redirect URI with `code`, `state` and `iss` (the issuer, RFC 9207) added: where to send the browser.' }),
  scope: Type.String(),
});

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

const AUTHORIZATION_DESCRIPTION = [
  'Issues an authorization code for the signed-in person (a confirmed session on a confirmed account) to the relying party `client_id`.',
  'Checks: the client exists (400/162); `redirect_uri`, when sent, is registered, exactly (400/167); every scope is allowed to the client (400/163 with `invalidScopes`; a client registered with pairwise subjects is never given `profile`, `profile:write`, `profile:uid` or `profile:uid:write`, which would show it the uid); a public client sends a PKCE `code_challenge` with method `S256` (400/169); `acr_values` AAL2 needs a two-step session (400/170); `response_type` is `code` (400/168).',
  'The code is 32 random bytes (64 hex), stored as its SHA-256, single use and valid 15 minutes.',
].join(' ');

const TOKEN_ERRORS = ['UNKNOWN_CLIENT_ID', 'INCORRECT_CLIENT_SECRET', 'UNKNOWN_AUTHORIZATION_CODE', 'MISMATCH_AUTHORIZATION_CODE',
  'EXPIRED_AUTHORIZATION_CODE', 'MISSING_PKCE_PARAMETERS', 'INVALID_PKCE_CHALLENGE', 'INCORRECT_REDIRECT_URI', 'REFRESH_TOKEN_UNKNOWN', 'INVALID_SCOPES',
  'INVALID_TARGET', 'INSUFFICIENT_AAL'] as const satisfies AuthErrorName[];

/** The OAuth-server path's sentence on errnos, added to a description written with auth errnos. */
const OAUTH_ERRNOS_NOTE = 'This path answers from the OAuth server\'s error catalogue (the portal\'s error reference, OAuth section), not with the auth errnos quoted above: 101 unknown client, 102 incorrect secret, 103 redirect_uri mismatch, 104 invalid session (401), 105 unknown code, 106 another client\'s code, 107 expired code, 108 invalid or unknown token, 109 invalid parameter, 110 response_type, 111 bad signature (401), 112 unconfirmed (403), 113 content type (415), 114 scopes, 117 PKCE mismatch, 118 PKCE missing, 120 acr_values, 121 grant_type, 122 invalid_target; a session below the account\'s AAL keeps the auth server\'s 400/222, which has no twin.';

const TOKEN_DESCRIPTION = [
  'Trades an authorization code, or a refresh token, for an access token. Bodies may be JSON or `application/x-www-form-urlencoded`.',
  'A confidential client authenticates with `Authorization: Basic` (client_secret_basic) or `client_secret` in the body (client_secret_post), never both; a wrong secret answers 400/171. A public client sends no secret.',
  '`authorization_code`: unknown code 400/172, another client\'s 400/173, expired 400/174, PKCE verifier missing 400/169 or not matching 400/175, redirect_uri differing from the authorization request\'s 400/167. A code is single use: a second use answers 400/172 and revokes the access and refresh tokens the first use issued.',
  '`fxa-credentials` (POST /oauth/token with a session token): for first-party clients registered with canGrant; the session authorizes directly, `access_type=offline` adds a refresh token. The session must be confirmed (400/138) on a confirmed account (400/104), and on an account with two-step authentication confirmed by the second factor (400/222, as /oauth/authorization answers). A refresh grant made before the account turned two-step on keeps working: it is the same grant, not a new one. `refresh_token`: unknown, revoked, expired or another client\'s token 400/182; `scope` may narrow the grant, never widen it (400/163). Clients registered with refresh-token rotation get a new refresh token each time and the one used stops working; presenting a replaced token again (a copy, or the loser of two concurrent refreshes: there is no grace period) ends its grant, the current refresh token and every access token of it, and answers as for an unknown token (RFC 9700 §4.14.2 reuse detection).',
  `Token exchange (\`grant_type=${TOKEN_EXCHANGE_GRANT}\`, RFC 8693): a client registered with canGrant sends its refresh token as \`subject_token\` with \`subject_token_type=${REFRESH_TOKEN_TYPE}\` and the scopes to add as \`scope\` (required); it gets an access token and a new refresh token for the union of the scopes, and the refresh token sent stops working (of two exchanges of one token, one succeeds); presenting it again, here or as a refresh, ends the grant as a replaced rotated token does. Unknown, revoked, expired or another client's subject token 400/182; a client without canGrant, a scope the client is not allowed, or a scope carrying a scoped key not already granted 400/163. A confidential client authenticates with its secret; a public client, which has none, must send the request to POST /oauth/token with the session token of the refresh token's account (Hawk), confirmed at the account's AAL (RFC 8693 §5: without client authentication the token alone would be enough): without one 401/110 (401/104 on /token), another account's session 400/182, an unconfirmed one 400/138, one below the account's AAL 400/222. On an account with two-step authentication, a grant made without the second factor is not widened (400/222). The answer adds \`issued_token_type\`.`,
  'The answer has `token_type` bearer, `scope` (space-separated), `expires_in` (seconds, ≤ 86400, the client\'s lifetime by default), `auth_at`, `refresh_token` with `access_type=offline`, `id_token` with scope `openid`, and `keys_jwe` when the authorization request carried one.',
  'Clients registered with pairwise subjects get as `sub` a pairwise id (32 hex) that depends on the client, the account, `ppid_seed` and, if the client rotates them, the period; clients registered with JWT access tokens get `access_token` as an RS256 JWT (`typ` at+jwt). `resource` (an absolute URI without fragment, else 400/109 or 400/107) must be one of the resources the client is registered for (`allowedResources`, compared exactly; else `invalid_target`, 400/224, 400/122 on /token, RFC 8707 §2), and adds that URI to the `aud` of the id_token and of a JWT access token.',
].join(' ');

/** What the OAuth-server paths do with `assertion` (assertion.ts). */
const ASSERTION_NOTE = 'An `assertion` (50–10240 characters) is accepted by the schema and never honoured: Tessera issues no identity assertions and authorizes this call with the session token, signed with Hawk.';
const AUTHORIZATION_DESCRIPTION_OAUTH = `${AUTHORIZATION_DESCRIPTION} ${ASSERTION_NOTE} Sent instead of a session token it answers 401/104, beside one 400/109. ${OAUTH_ERRNOS_NOTE}`;
const TOKEN_DESCRIPTION_OAUTH = `${TOKEN_DESCRIPTION} An \`assertion\` (50–10240 characters) is accepted by the schema and never honoured: Tessera issues no identity assertions; it answers 401/104 saying to use the fxa-credentials grant on POST /oauth/token with a Hawk-signed session token, and so does \`grant_type=fxa-credentials\` on this path. ${OAUTH_ERRNOS_NOTE}`;

/** application/x-www-form-urlencoded, a parameter at most once (RFC 6749 §3.1, §3.2). `ttl` and `ppid_seed` are numbers. */
function parseForm(text: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    if (k in out) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [k], message: `${k} is sent more than once` } });
    out[k] = (k === 'ttl' || k === 'ppid_seed') && /^\d{1,6}$/.test(v) ? Number(v) : v;
  }
  return out;
}

/** OAuth clients post forms (RFC 6749 §4.1.3): the parser, for the scope holding the OAuth routes. */
export function installFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_req, body, done) => {
    try {
      done(null, parseForm(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

const HTML_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in — Tessera</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>Browser sign-in is not available yet</h1>
<p>This Tessera server does not include the account web app, so the sign-in and consent pages that
this link would open do not exist yet.</p>
<p>Relying parties can still obtain an authorization code through the API: a signed-in client calls
<code>POST /v1/oauth/authorization</code> with its session token (see the OAuth reference in the
developer portal).</p>
</body></html>
`;

export const grantRoutes: FastifyPluginAsyncTypebox<{ grants: GrantsService; jwks: PublicJwk[] }> = async (app, { grants, jwks }) => {
  for (const path of ['/oauth/authorization', '/authorization'] as const) {
    app.post(path, {
      config: { auth: 'sessionTokenVerified', ...(path === '/authorization' ? { catalogue: 'oauth' as const } : {}), rateLimit: { actions: ['oauthAuthorization'] } },
      schema: {
        operationId: path === '/authorization' ? 'authorization' : 'oauthAuthorization',
        tags: [TAG], summary: path === '/authorization' ? 'Authorize a relying party (OAuth server path)' : 'Authorize a relying party',
        description: path === '/authorization' ? AUTHORIZATION_DESCRIPTION_OAUTH : AUTHORIZATION_DESCRIPTION,
        body: path === '/authorization' ? AuthorizationServerBody : AuthorizationBody,
        response: (path === '/authorization' ? oauthResponses : responses)(AuthorizationReply, ['UNKNOWN_CLIENT_ID', 'INCORRECT_REDIRECT_URI', 'INVALID_SCOPES', 'MISSING_PKCE_PARAMETERS', 'INSUFFICIENT_ACR_VALUES',
          'INVALID_RESPONSE_TYPE', 'ACCOUNT_UNVERIFIED', 'SESSION_UNVERIFIED'], { auth: true }),
      },
    }, async (req) => grants.authorize(credentialsOf(req, 'sessionTokenVerified'), withoutAssertion(req.body)));
  }

  app.get('/authorization', {
    config: { auth: 'none' },
    schema: {
      operationId: 'authorizationPage', tags: [TAG], summary: 'The browser\'s authorization entry (not available yet)',
      description: 'Where a relying party sends a browser. The account web app\'s sign-in and consent pages are not part of this server yet: this answers 200 with an HTML page saying so, whatever the query. Use POST /oauth/authorization with a session token.',
      // An HTML page, not JSON (issue 22: the document says so); its errors are JSON catalogue bodies.
      response: { 200: { description: 'An HTML page.', content: { 'text/html': { schema: Type.String({ description: 'An HTML page.' }) } } } },
    },
  }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(HTML_PAGE));

  for (const path of ['/oauth/token', '/token'] as const) {
    app.post(path, {
      // /oauth/token also takes a session (the fxa-credentials grant); a Basic header is client authentication.
      config: path === '/oauth/token'
        ? {
          auth: {
            strategies: ['sessionToken'], optional: true, clientBasic: true,
            unconfirmed: 'The session is optional and only two grants use it, each checking its state itself: fxa-credentials needs it confirmed at the account\'s AAL (400/138, 400/222), and a public client\'s token exchange the same, for the account of the refresh token.',
          },
          rateLimit: { actions: ['oauthToken'] },
        }
        : { auth: 'none', catalogue: 'oauth', assertion: true, rateLimit: { actions: ['oauthToken'] } },
      schema: {
        operationId: path === '/token' ? 'token' : 'oauthToken',
        tags: [TAG], summary: path === '/token' ? 'Get tokens (OAuth server path)' : 'Get tokens',
        description: path === '/token' ? TOKEN_DESCRIPTION_OAUTH : TOKEN_DESCRIPTION,
        body: path === '/token' ? TokenServerBody : TokenBody,
        response: path === '/token' ? oauthResponses(TokenReply, [...TOKEN_ERRORS, 'INVALID_TOKEN'], { grantType: true, assertion: true })
          : responses(TokenReply, [...TOKEN_ERRORS, 'SESSION_UNVERIFIED', 'ACCOUNT_UNVERIFIED'], { auth: true }),
      },
    }, async (req) => grants.token(path === '/token' ? refuseAssertion(req.body) : req.body, req.headers.authorization, req.auth?.strategy === 'sessionToken' ? credentialsOf(req, 'sessionToken') : null, contextOf(req)));
  }

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
