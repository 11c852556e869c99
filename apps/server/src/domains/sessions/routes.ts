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
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'A waiting sign-in asks what it waits for (email or the second factor); the answer is the session\'s own state.' } },
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
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'A sign-in may always sign itself out; signing out another session needs a session confirmed at the account\'s AAL, which the handler checks (400/138, 400/222).' } },
    schema: {
      tags: [TAG], summary: 'Sign out a session',
      description: 'Destroys the calling session, or with `customSessionToken` (a session\'s id or handle) another session of the same account. Any session may destroy itself; destroying another takes a session confirmed at the account\'s level, as /account/attached_client/destroy does: an unconfirmed one gets 400/138, one below AAL2 on an account with two-step authentication 400/222, whether or not the name is a session of the account.',
      body: body({ customSessionToken: Type.Optional(sessionTokenId) }),
      response: responses(Type.Object({}), ['SESSION_UNVERIFIED', 'INSUFFICIENT_AAL'], { auth: true }),
    },
  }, async (req) => {
    await sessions.destroy(credentialsOf(req, 'sessionToken'), req.body.customSessionToken, contextOf(req));
    return {};
  });

  app.post('/session/duplicate', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'The copy of an unconfirmed session is unconfirmed and waits on a confirmation of its own: it gains nothing the original lacks.' } },
    schema: {
      tags: [TAG], summary: 'A second session for the same sign-in',
      description: 'The copy has its own token and its own confirmation state. A confirmed session\'s copy is confirmed the same way (same method, same AAL); an unconfirmed session\'s copy is unconfirmed and waits on a confirmation of its own (its own link code and emailed codes, or the second factor on an account with two-step authentication): confirming either does not confirm the other.',
      body: body({ reason: Type.Optional(Type.String({ maxLength: 16 })) }),
      response: responses(Type.Object({ uid, sessionToken: hex(64), authAt: Type.Integer(), ...SigninState }), [], { auth: true }),
    },
  }, async (req) => sessions.duplicate(credentialsOf(req, 'sessionToken'), contextOf(req)));
};
