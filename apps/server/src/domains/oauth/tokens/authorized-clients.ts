import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import { credentialsOf } from '../../../http/auth.js';
import { oauthResponses } from '../../../http/responses.js';
import type { Database } from '../../../storage/schema.js';
import type { OAuthService } from '../service.js';

// The OAuth server's authorized clients (spec 2 §7): what the account has granted, per refresh
// token, plus clients holding only access tokens; and revoking them. Signed-in (session token).

const Entry = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  refresh_token_id: Type.Optional(Type.String({ description: 'The refresh token\'s handle (SHA-256), not the token.' })),
  created_time: Type.Integer({ description: 'ms' }),
  last_access_time: Type.Integer({ description: 'ms. A refresh token\'s last use, written at most hourly; for a client holding only access tokens, when the newest was issued.' }),
  scope: Type.Array(Type.String()),
});

export const authorizedClientRoutes: FastifyPluginAsyncTypebox<{ db: Kysely<Database>; clock: Clock; oauth: OAuthService }> = async (app, { db, clock, oauth }) => {
  app.post('/authorized-clients', {
    config: {
      auth: {
        strategies: ['sessionToken'],
        unconfirmed: 'Read only, and nothing secret: the names, scopes and times of what the account authorized (refresh tokens by handle), as /account/attached_clients shows a new sign-in; revoking needs a confirmed session.',
      },
      catalogue: 'oauth',
    },
    schema: {
      operationId: 'authorizedClients', tags: ['OAuth tokens'], summary: 'The clients the account has authorized',
      description: 'One entry per refresh token (with `refresh_token_id`), and one per client that holds only live access tokens (without). Most recently used first. Errors come from the OAuth server\'s catalogue (an invalid session 401/104).',
      body: Type.Optional(Type.Object({}, { additionalProperties: false })),
      response: oauthResponses(Type.Array(Entry), [], { auth: true }),
    },
  }, async (req) => (await oauth.authorizedClients(db, credentialsOf(req, 'sessionToken').uid, clock.now())).map((c) => ({
    client_id: c.clientId, client_name: c.clientName, ...(c.refreshTokenId ? { refresh_token_id: c.refreshTokenId } : {}),
    created_time: c.createdAt, last_access_time: c.lastAccessAt, scope: c.scope,
  })));

  app.post('/authorized-clients/destroy', {
    config: { auth: 'sessionTokenVerified', catalogue: 'oauth' },
    schema: {
      operationId: 'authorizedClientsDestroy', tags: ['OAuth tokens'], summary: 'Revoke an authorized client',
      description: 'With `refresh_token_id`: revokes that refresh token of the client and, in the same transaction, the access tokens of its authorization grant (400/108 when the account has no such token of it). Without: revokes every refresh and access token the account granted the client. Needs a confirmed session (else 403/112). Errors come from the OAuth server\'s catalogue.',
      body: Type.Object({
        client_id: Type.String({ pattern: '^[0-9a-fA-F]{16}$' }),
        refresh_token_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })),
      }, { additionalProperties: false }),
      response: oauthResponses(Type.Object({}), ['REFRESH_TOKEN_UNKNOWN', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    const { uid } = credentialsOf(req, 'sessionTokenVerified');
    const clientId = req.body.client_id.toLowerCase();
    if (req.body.refresh_token_id) {
      if (!(await oauth.revokeRefreshToken(db, uid, req.body.refresh_token_id.toLowerCase(), clientId))) throw appError('REFRESH_TOKEN_UNKNOWN');
    } else {
      await oauth.revokeClientGrants(db, uid, clientId);
    }
    return {};
  });
};
