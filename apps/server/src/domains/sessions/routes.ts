import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { body, hex, sessionTokenId, SigninState, uid } from '../../http/schemas.js';
import type { SessionsService } from './service.js';

// /session/status, /session/destroy, /session/duplicate. The session routes that prove a password
// (/session/reauth) are the accounts domain's; those that confirm by email, the emails domain's.

const TAG = 'Session';

export const sessionRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService }> = async (app, { sessions }) => {
  app.get('/session/status', {
    config: { auth: 'sessionToken' },
    schema: {
      tags: [TAG], summary: 'Session and account confirmation state',
      response: responses(Type.Object({
        state: Type.Union([Type.Literal('verified'), Type.Literal('unverified')]),
        uid,
        details: Type.Object({
          accountEmailVerified: Type.Boolean(),
          sessionVerificationMethod: Type.Union([Type.String(), Type.Null()], { description: 'How the session was confirmed: email, email-2fa, totp-2fa, recovery-code; null while unconfirmed.' }),
          sessionVerified: Type.Boolean(),
          sessionVerificationMeetsMinimumAAL: Type.Boolean(),
          verified: Type.Boolean(),
        }),
      }), [], { input: false, auth: true }),
    },
  }, async (req) => sessions.status(credentialsOf(req, 'sessionToken')));

  app.post('/session/destroy', {
    config: { auth: 'sessionToken' },
    schema: {
      tags: [TAG], summary: 'Sign out a session',
      description: 'Destroys the calling session, or with `customSessionToken` (a session\'s id or handle) another session of the same account.',
      body: body({ customSessionToken: Type.Optional(sessionTokenId) }),
      response: responses(Type.Object({}), [], { auth: true }),
    },
  }, async (req) => {
    await sessions.destroy(credentialsOf(req, 'sessionToken'), req.body.customSessionToken, contextOf(req));
    return {};
  });

  app.post('/session/duplicate', {
    config: { auth: 'sessionToken' },
    schema: {
      tags: [TAG], summary: 'A second session for the same sign-in',
      description: 'The copy has its own token and the same confirmation state; confirming one by emailed link confirms both.',
      body: body({ reason: Type.Optional(Type.String({ maxLength: 16 })) }),
      response: responses(Type.Object({ uid, sessionToken: hex(64), authAt: Type.Integer(), ...SigninState }), [], { auth: true }),
    },
  }, async (req) => sessions.duplicate(credentialsOf(req, 'sessionToken'), contextOf(req)));
};
