import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { randomHex } from '@tessera/protocol';
import { responses } from '../../http/responses.js';
import { hex } from '../../http/schemas.js';

export const miscRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/get_random_bytes', {
    config: { auth: 'none' },
    schema: {
      tags: ['Miscellaneous'], summary: '32 random bytes',
      description: 'From the server\'s CSPRNG, for clients without a good source of their own.',
      response: responses(Type.Object({ data: hex(64) }), [], { input: false }),
    },
  }, async () => ({ data: randomHex(32) }));
};
