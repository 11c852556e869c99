import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../../http/auth.js';
import { operation, registerOperation } from '../../../http/operation.js';
import { oauthResponses, responses } from '../../../http/responses.js';
import { StringEnum } from '../../../http/schemas.js';
import { clientCredentials } from '../clients/credentials.js';
import type { TokenClaims } from './claims.js';
import type { TokenIntrospection } from './introspection.js';
import type { TokenRevocation } from './revocation.js';

// Routes over issued tokens (spec 2 §7): /introspect, /verify, /destroy and /oauth/destroy,
// /oauth/id-token-verify, OpenID Connect /userinfo and the browsers' /profile. Bodies may be JSON
// or form-encoded (form-body.ts, registered for the plugin scope holding the OAuth routes).

const TAG = 'OAuth tokens';
const token = Type.String({ minLength: 1, maxLength: 4096, description: 'An access or refresh token (64 hex), or a JWT access token.' });
const hint = Type.Optional(StringEnum(['access_token', 'refresh_token'], { description: 'Which kind to look for first (RFC 7009 / 7662).' }));
const clientAuth = {
  client_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{16}$', description: 'Required unless Basic credentials name the client.' })),
  client_secret: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'A confidential client\'s secret, when not sent with Basic.' })),
};
const CLIENT_AUTH_ERRORS = ['UNKNOWN_CLIENT_ID', 'INCORRECT_CLIENT_SECRET'] as const;

const Introspection = Type.Object({
  active: Type.Boolean(),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  token_type: Type.Optional(StringEnum(['access_token', 'refresh_token'])),
  iat: Type.Optional(Type.Integer({ description: 'Seconds since the epoch (RFC 7662; the incumbent sends milliseconds).' })),
  exp: Type.Optional(Type.Integer({ description: 'Seconds since the epoch; absent for refresh tokens that live until revoked.' })),
  sub: Type.Optional(Type.String({ description: 'The account\'s uid; for a client registered with pairwise subjects, its pairwise id (the one its id_token showed) for an access token, and absent for a refresh token.' })),
  iss: Type.Optional(Type.String()),
  jti: Type.Optional(Type.String({ description: 'Hex SHA-256 of the token; for a JWT access token, its `jti` claim.' })),
});

const ProfileReply = Type.Object({
  uid: Type.String(), sub: Type.String(),
  email: Type.Optional(Type.String()),
  locale: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  amrValues: Type.Optional(Type.Array(Type.String())),
  twoFactorAuthentication: Type.Optional(Type.Boolean()),
  accountDisabledAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  accountLockedAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  profileChangedAt: Type.Integer(),
});

const UserinfoReply = Type.Object({
  sub: Type.String(),
  email: Type.Optional(Type.String()),
  email_verified: Type.Optional(Type.Boolean()),
  locale: Type.Optional(Type.String()),
  amr: Type.Optional(Type.Array(Type.String())),
});

export interface TokenServices {
  introspection: TokenIntrospection;
  revocation: TokenRevocation;
  claims: TokenClaims;
}

export const tokenRoutes: FastifyPluginAsyncTypebox<TokenServices> = async (app, { introspection, revocation, claims }) => {
  app.post('/introspect', {
    config: { auth: 'none', catalogue: 'oauth', rateLimit: { actions: ['oauthIntrospect'] } },
    schema: {
      operationId: 'introspect', tags: [TAG], summary: 'Introspect a token (RFC 7662)',
      description: 'The calling client authenticates like at /token (Basic, `client_secret`, or `client_id` alone for a public client) and learns about its own access and refresh tokens: `active: true` with scope, client_id, token_type, iat, exp (seconds, per the RFC), sub, iss and jti. Unknown, expired, revoked and other clients\' tokens all answer `{active: false}`, and so do JWTs with a bad signature, another issuer, `alg` none or a `typ` other than at+jwt. A client registered with pairwise subjects is shown its pairwise `sub`, never the uid.',
      body: Type.Object({ token, token_type_hint: hint, ...clientAuth }, { additionalProperties: false }),
      response: oauthResponses(Introspection, [...CLIENT_AUTH_ERRORS]),
    },
  }, async (req) => introspection.introspect(clientCredentials(req.body, req.headers.authorization), req.body.token, req.body.token_type_hint));

  app.post('/verify', {
    config: { auth: 'none', catalogue: 'oauth', rateLimit: { actions: ['oauthIntrospect'] } },
    schema: {
      operationId: 'verify', tags: [TAG], summary: 'Verify an access token',
      description: 'For resource servers: the live access token (opaque, or a JWT access token whose signature, issuer, `typ` and expiry are checked and which has not been revoked) and its account (`user`: the uid, or for a client registered with pairwise subjects its pairwise id), client, scopes (an array), the account\'s `generation` (when its password was last set, ms) and `profile_changed_at` (ms). 400/108 (OAuth catalogue) when the token is unknown, expired or revoked.',
      body: Type.Object({ token }, { additionalProperties: false }),
      response: oauthResponses(Type.Object({
        user: Type.String(), client_id: Type.String(), scope: Type.Array(Type.String()), generation: Type.Integer(), profile_changed_at: Type.Integer(),
      }), ['INVALID_TOKEN']),
    },
  }, async (req) => claims.verify(req.body.token));

  registerOperation(app, operation({
    tags: [TAG], summary: 'Revoke a token (RFC 7009)',
    description: 'The calling client authenticates like at /token and revokes one of its own access or refresh tokens (`token`, or the older `access_token` / `refresh_token` fields). A refresh token is revoked with every access token of its authorization grant, in one transaction (RFC 7009 §2.1): the first one, those of later refreshes and rotations, and those of a token exchange\'s successor, JWT access tokens included (tokens issued before grant ids existed are not tied to one and expire on their own). An access token is revoked alone: its refresh token keeps working. A JWT access token revoked here is refused by Tessera from then on, but a resource server that only checks its signature cannot know. As RFC 7009 §2.2 says, the answer is `{}` whether or not the token existed or was the client\'s (another client\'s token is left alone). /destroy answers errors from the OAuth server\'s catalogue (unknown client 400/101, wrong secret 400/102, invalid parameter 400/109), /oauth/destroy from the auth server\'s (400/162, 400/171, 400/107 or 108).',
    input: {
      body: Type.Object({
        token: Type.Optional(token), access_token: Type.Optional(token), refresh_token: Type.Optional(token), token_type_hint: hint, ...clientAuth,
      }, { additionalProperties: false }),
    },
    output: Type.Object({}),
    errors: [...CLIENT_AUTH_ERRORS],
    rateLimit: { actions: ['oauthIntrospect'] },
    handle: async ({ body, caller }) => {
      await revocation.destroy(body, caller);
      return {};
    },
    doors: [
      { method: 'POST', path: '/destroy', operationId: 'destroy', auth: 'none', catalogue: 'oauth', caller: (req) => req.headers.authorization },
      { method: 'POST', path: '/oauth/destroy', operationId: 'oauthDestroy', auth: 'none', summary: 'Revoke a token (RFC 7009, auth-server path)', caller: (req) => req.headers.authorization },
    ],
  }));

  app.post('/oauth/id-token-verify', {
    config: { auth: 'none', rateLimit: { actions: ['oauthIntrospect'] } },
    schema: {
      operationId: 'oauthIdTokenVerify', tags: [TAG], summary: 'Verify an id_token',
      description: 'Checks an id_token this server issued to `client_id`: RS256 signature with a key of /jwks, `iss`, `aud`, `exp` (with up to `expiry_grace_period` seconds of grace), and that it is not a JWT access token (`typ` at+jwt). Answers its claims; 401/110 when any check fails.',
      body: Type.Object({
        client_id: Type.String({ pattern: '^[0-9a-fA-F]{16}$' }),
        id_token: Type.String({ maxLength: 8192 }),
        expiry_grace_period: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
      }, { additionalProperties: false }),
      response: responses(Type.Object({ sub: Type.String(), aud: Type.Union([Type.String(), Type.Array(Type.String())]), iss: Type.String(), iat: Type.Integer(), exp: Type.Integer() }, { additionalProperties: true }), ['INVALID_TOKEN']),
    },
  }, async (req) => claims.verifyIdToken(req.body.client_id, req.body.id_token, req.body.expiry_grace_period) as never);

  app.get('/userinfo', {
    config: { auth: 'oauthToken' },
    schema: {
      operationId: 'userinfo', tags: [TAG], summary: 'OpenID Connect userinfo',
      description: 'The person\'s claims as the access token\'s scopes allow (an opaque or JWT access token): `sub` always (a pairwise id for clients registered with pairwise subjects); `email` and `email_verified` with `profile` or `profile:email`; `locale` with `profile:locale`; `amr` with `profile:amr`.',
      response: responses(UserinfoReply, [], { input: false, auth: true }),
    },
  }, async (req) => claims.userinfo(credentialsOf(req, 'oauthToken')));

  app.get('/profile', {
    config: { auth: 'oauthToken' },
    schema: {
      operationId: 'profile', tags: [TAG], summary: 'The profile browsers read',
      description: 'With an OAuth access token (opaque or JWT): `uid` always (for a client registered with pairwise subjects, `uid` and `sub` are its pairwise id), the rest as its scopes allow (`profile` covers all; `profile:email`, `profile:locale`, `profile:amr`, `profile:account_disabled_at`, `profile:account_locked_at`).',
      response: responses(ProfileReply, [], { input: false, auth: true }),
    },
  }, async (req) => claims.profile(credentialsOf(req, 'oauthToken')));
};
