import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { appError } from '@tessera/errors';
import { oauthResponses, responses } from '../../../http/responses.js';
import type { ClientRegistry } from './registry.js';
import type { Executor } from '../../../storage/executor.js';

// The OAuth routes of spec 2 §7 built so far: the client registry's public face.

const TAG = 'OAuth';

const clientId = Type.String({ pattern: '^[0-9a-fA-F]{16}$', description: 'The client id: 16 hex characters.' });

const ClientInfo = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  name: Type.String({ description: 'The name shown to people on sign-in and consent pages.' }),
  trusted: Type.Boolean({ description: 'A first-party client: no consent page, and it may ask for any scope it is allowed.' }),
  image_uri: Type.String({ description: 'The client\'s logo (https), or empty.' }),
  redirect_uri: Type.String({ description: 'The client\'s first registered redirect URI.' }),
}, { additionalProperties: false });

const DESCRIPTION_BASE = 'What a sign-in or consent page shows of a registered OAuth client: id, name, logo, whether it is trusted (first-party), and its first registered redirect URI. Nothing secret.';
const DESCRIPTION = `${DESCRIPTION_BASE} An unknown id answers 400/162 with \`clientId\`; an id that is not 16 hex characters 400/107.`;
const DESCRIPTION_OAUTH = `${DESCRIPTION_BASE} Answers from the OAuth server's error catalogue: an unknown id 400/101 with \`clientId\`, an id that is not 16 hex characters 400/109.`;

export const clientRoutes: FastifyPluginAsyncTypebox<{ clients: ClientRegistry; db: Executor }> = async (app, { clients, db }) => {
  const info = async (id: string) => {
    const client = await clients.findClient(db, id);
    if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId: id });
    return clients.clientInfo(client);
  };

  app.get('/client/:id', {
    config: { auth: 'none', catalogue: 'oauth', rateLimit: { actions: ['oauthClientInfo'] } },
    schema: {
      operationId: 'client', tags: [TAG], summary: 'An OAuth client\'s public details', description: DESCRIPTION_OAUTH,
      params: Type.Object({ id: clientId }),
      response: oauthResponses(ClientInfo, ['UNKNOWN_CLIENT_ID']),
    },
  }, async (req) => info(req.params.id));

  app.get('/oauth/client/:client_id', {
    config: { auth: 'none', rateLimit: { actions: ['oauthClientInfo'] } },
    schema: {
      operationId: 'oauthClient', tags: [TAG], summary: 'An OAuth client\'s public details (auth-server path)', description: `${DESCRIPTION} The same answer as GET /client/{id}, with auth-server errnos.`,
      params: Type.Object({ client_id: clientId }),
      response: responses(ClientInfo, ['UNKNOWN_CLIENT_ID']),
    },
  }, async (req) => info(req.params.client_id));
};
