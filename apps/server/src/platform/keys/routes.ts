import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { responses } from '../../http/responses.js';
import { browseridDocument, publicKeys, type SigningKey } from './service.js';

const Jwk = Type.Object({
  kty: Type.Literal('RSA'), alg: Type.Literal('RS256'), use: Type.Literal('sig'), kid: Type.String(),
  n: Type.String(), e: Type.String(), 'fxa-createdAt': Type.Integer({ description: 'Seconds; rounded down to the hour.' }),
});

export const keyRoutes: FastifyPluginAsyncTypebox<{ key: SigningKey }> = async (app, { key }) => {
  app.get('/.well-known/public-keys', {
    config: { auth: 'none' },
    schema: {
      tags: ['Keys'], summary: 'The server\'s public signing keys', operationId: 'publicKeys',
      description: 'A JWK set (RS256) of the keys the server signs its JWTs with.',
      response: responses(Type.Object({ keys: Type.Array(Jwk) }), [], { input: false }),
    },
  }, async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return publicKeys(key);
  });

  app.get('/.well-known/browserid', {
    config: { auth: 'none' },
    schema: {
      tags: ['Keys'], summary: 'BrowserID support document', operationId: 'browserid',
      description: 'Publishes the signing key for BrowserID-era verifiers (`public-key` with decimal n and e) and says `disabled: true`: Tessera does not provision BrowserID certificates.',
      response: responses(Type.Object({
        'public-key': Type.Object({ algorithm: Type.Literal('RS'), n: Type.String(), e: Type.String() }),
        keys: Type.Array(Jwk),
        disabled: Type.Boolean(),
      }), [], { input: false }),
    },
  }, async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return browseridDocument(key);
  });
};
