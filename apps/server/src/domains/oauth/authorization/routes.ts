import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { credentialsOf } from '../../../http/auth.js';
import { operation, registerOperation } from '../../../http/operation.js';
import { StringEnum } from '../../../http/schemas.js';
import { Assertion } from '../assertion.js';
import { hex, OAUTH_ERRNOS_NOTE, ppidSeed, scope } from '../wire.js';
import type { AuthorizationDoor } from './door-steps.js';
import type { AuthorizationService } from './service.js';

// POST /oauth/authorization and /authorization: one operation, two doors (auth-server and
// OAuth-server errnos), each with its table of steps (door-steps.ts); and GET /authorization, the
// browser's entry, until the account web app exists a page saying so.

const TAG = 'OAuth';

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

const AUTHORIZATION_DESCRIPTION = [
  'Issues an authorization code for the signed-in person (a confirmed session on a confirmed account) to the relying party `client_id`.',
  'Checks: the client exists (400/162); `redirect_uri`, when sent, is registered, exactly (400/167); every scope is allowed to the client (400/163 with `invalidScopes`; a client registered with pairwise subjects is never given `profile`, `profile:write`, `profile:uid` or `profile:uid:write`, which would show it the uid); a public client sends a PKCE `code_challenge` with method `S256` (400/169); `acr_values` AAL2 needs a two-step session (400/170); `response_type` is `code` (400/168).',
  'The code is 32 random bytes (64 hex), stored as its SHA-256, single use and valid 15 minutes.',
].join(' ');

/** What the OAuth-server paths do with `assertion` (assertion.ts). */
const ASSERTION_NOTE = 'An `assertion` (50–10240 characters) is accepted by the schema and never honoured: Tessera issues no identity assertions and authorizes this call with the session token, signed with Hawk.';
const AUTHORIZATION_DESCRIPTION_OAUTH = `${AUTHORIZATION_DESCRIPTION} ${ASSERTION_NOTE} Sent instead of a session token it answers 401/104, beside one 400/109. ${OAUTH_ERRNOS_NOTE}`;

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

/** Who asks (the signed-in person) and through which door, so the door's steps run. */
const caller = (door: AuthorizationDoor) => (req: FastifyRequest) => ({ session: credentialsOf(req, 'sessionTokenVerified'), door });

export const authorizationRoutes: FastifyPluginAsyncTypebox<{ authorization: AuthorizationService }> = async (app, { authorization }) => {
  registerOperation(app, operation({
    tags: [TAG], summary: 'Authorize a relying party', description: AUTHORIZATION_DESCRIPTION,
    input: { body: AuthorizationBody },
    output: AuthorizationReply,
    errors: ['UNKNOWN_CLIENT_ID', 'INCORRECT_REDIRECT_URI', 'INVALID_SCOPES', 'MISSING_PKCE_PARAMETERS', 'INSUFFICIENT_ACR_VALUES', 'INVALID_RESPONSE_TYPE', 'ACCOUNT_UNVERIFIED', 'SESSION_UNVERIFIED'],
    rateLimit: { actions: ['oauthAuthorization'] },
    handle: async ({ caller: { session, door }, body }) => {
      const answer = await authorization.authorize(session, body, door);
      return { ...answer, scope: answer.scope.join(' ') };
    },
    doors: [
      { method: 'POST', path: '/oauth/authorization', operationId: 'oauthAuthorization', auth: 'sessionTokenVerified', caller: caller('auth') },
      {
        method: 'POST', path: '/authorization', operationId: 'authorization', auth: 'sessionTokenVerified', catalogue: 'oauth', caller: caller('oauth'),
        summary: 'Authorize a relying party (OAuth server path)', description: AUTHORIZATION_DESCRIPTION_OAUTH, wire: { body: AuthorizationServerBody },
      },
    ],
  }));

  app.get('/authorization', {
    config: { auth: 'none' },
    schema: {
      operationId: 'authorizationPage', tags: [TAG], summary: 'The browser\'s authorization entry (not available yet)',
      description: 'Where a relying party sends a browser. The account web app\'s sign-in and consent pages are not part of this server yet: this answers 200 with an HTML page saying so, whatever the query. Use POST /oauth/authorization with a session token.',
      // An HTML page, not JSON (issue 22: the document says so); its errors are JSON catalogue bodies.
      response: { 200: { description: 'An HTML page.', content: { 'text/html': { schema: Type.String({ description: 'An HTML page.' }) } } } },
    },
  }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(HTML_PAGE));
};
