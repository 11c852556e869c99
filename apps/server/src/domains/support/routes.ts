import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { appError } from '@tessera/errors';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { email } from '../../http/schemas.js';
import { SUPPORT_SECRET_HEADER } from './secret.js';
import type { SupportService } from './service.js';

const text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, pattern: '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$', description });

export const supportRoutes: FastifyPluginAsyncTypebox<{ support: SupportService }> = async (app, { support }) => {
  app.post('/support/ticket', {
    config: { auth: { strategies: ['sessionTokenVerified'], optional: true }, rateLimit: { actions: ['supportTicket'] } },
    schema: {
      tags: ['Support'], summary: 'File a support ticket',
      description: [
        'Stores the ticket and forwards it to the helpdesk webhook (SUPPORT_WEBHOOK_URL, signed, see the portal\'s support page). Authenticated by a confirmed session (the ticket is the account\'s, with its primary address; an unconfirmed one gets 400/138), or, for a trusted helpdesk front end, by the support secret in the `Tessera-Support-Secret` header (then `email` is required, 400/108). Neither: 401/110.',
        '`success` says whether the helpdesk accepted the ticket now; when it did not, `error` says so and the ticket is forwarded again later (retries with doubling waits, also after a restart). `ticket` is Tessera\'s id of the ticket either way. 503/202 when no helpdesk webhook is configured.',
      ].join(' '),
      body: Type.Object({
        email: Type.Optional(email('The customer\'s address: required with the support secret; with a session the account\'s primary address is used.')),
        productName: text(255, 'The product the ticket is about.'),
        productPlatform: Type.Optional(text(255, 'Operating system or platform.')),
        productVersion: Type.Optional(text(255, 'Version of the product.')),
        topic: text(255, 'The kind of problem (as the helpdesk names its topics).'),
        app: Type.Optional(text(255, 'The app inside the product.')),
        subject: Type.Optional(text(255, 'Subject line.')),
        message: text(10_000, 'What the customer wrote.'),
        product: Type.Optional(text(255, 'Product identifier.')),
        category: Type.Optional(text(255, 'Helpdesk category.')),
      }, { additionalProperties: false }),
      response: responses(Type.Object({
        success: Type.Boolean({ description: 'True when the helpdesk accepted the ticket during this request.' }),
        ticket: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'Tessera\'s id of the ticket (also sent to the helpdesk).' }),
        error: Type.Union([Type.String(), Type.Null()], { description: 'Why the helpdesk does not have it yet; null on success.' }),
      }), ['SESSION_UNVERIFIED', 'FEATURE_NOT_ENABLED'], { auth: true }),
    },
  }, async (req) => {
    if (req.auth) {
      const session = credentialsOf(req, 'sessionTokenVerified');
      return support.file({ kind: 'session', uid: session.uid, email: session.account.email }, req.body);
    }
    const presented = req.headers[SUPPORT_SECRET_HEADER];
    if (!support.secretMatches(typeof presented === 'string' ? presented : undefined)) {
      throw appError('INVALID_TOKEN', { detail: 'A confirmed session token or the support secret is required' });
    }
    return support.file({ kind: 'helpdesk' }, req.body);
  });
};
