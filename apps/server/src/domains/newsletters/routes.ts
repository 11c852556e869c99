import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { StringEnum } from '../../http/schemas.js';
import { NEWSLETTERS, type NewslettersService } from './service.js';

const TAG = 'Newsletters';
const list = Type.Array(StringEnum(NEWSLETTERS, { description: 'A newsletter of spec 2 §3.' }), { maxItems: NEWSLETTERS.length, uniqueItems: true });

export const newsletterRoutes: FastifyPluginAsyncTypebox<{ newsletters: NewslettersService }> = async (app, { newsletters }) => {
  app.post('/newsletters', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Set the account\'s newsletters', operationId: 'newslettersUpdate',
      description: 'The account\'s subscriptions become exactly `newsletters` (an empty list unsubscribes from all). When they changed and NEWSLETTER_WEBHOOK_URL is set, the mailing-list service is told (event `newsletters.updated` with the full list and what was added and removed; signed, retried until accepted). Needs a confirmed session (400/138).',
      body: Type.Object({ newsletters: list }, { additionalProperties: false }),
      response: responses(Type.Object({ newsletters: list }), ['SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    const session = credentialsOf(req, 'sessionTokenVerified');
    return { newsletters: await newsletters.set(session.uid, session.account.email, req.body.newsletters) };
  });

  app.get('/newsletters', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'Read only: which newsletters the account receives, which a waiting sign-up may show; changing them needs a session confirmed at the account\'s AAL.' } },
    schema: {
      tags: [TAG], summary: 'The account\'s newsletters',
      description: 'The newsletters the account is subscribed to, in alphabetical order.',
      response: responses(Type.Object({ newsletters: list }), [], { auth: true }),
    },
  }, async (req) => ({ newsletters: await newsletters.list(credentialsOf(req, 'sessionToken').uid) }));
};
