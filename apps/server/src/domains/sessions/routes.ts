import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { body, hex, metricsContext, service, sessionTokenId, SigninState, uid } from '../../http/schemas.js';
import { LoginBody, LoginQuery, loginInput } from '../accounts/routes.js';
import type { AccountsService } from '../accounts/service.js';
import type { Confirmations } from '../emails/service.js';
import type { SessionsService } from './service.js';
import type { SessionWithAccount } from './store.js';

const TAG = 'Session';


export interface SessionRoutesDeps {
  sessions: SessionsService;
  accounts: AccountsService;
  confirmations: Confirmations;
}

export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesDeps> = async (app, { sessions, accounts, confirmations }) => {
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
  }, async (req) => sessions.status(credentialsOf<SessionWithAccount>(req)));

  app.post('/session/destroy', {
    config: { auth: 'sessionToken' },
    schema: {
      tags: [TAG], summary: 'Sign out a session',
      description: 'Destroys the calling session, or with `customSessionToken` (a session id) another session of the same account.',
      body: body({ customSessionToken: Type.Optional(sessionTokenId) }),
      response: responses(Type.Object({}), [], { auth: true }),
    },
  }, async (req) => {
    await sessions.destroy(credentialsOf<SessionWithAccount>(req), req.body.customSessionToken);
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
  }, async (req) => sessions.duplicate(credentialsOf<SessionWithAccount>(req), contextOf(req)));

  app.post('/session/reauth', {
    config: { auth: 'sessionToken', stretches: true },
    schema: {
      tags: [TAG], summary: 'Prove the password again on this session',
      description: 'Updates the session\'s authAt; `?keys=true` returns a key fetch token for it.',
      querystring: LoginQuery,
      body: LoginBody,
      response: responses(Type.Object({
        uid, keyFetchToken: Type.Optional(hex(64)), keyFetchTokenVersion2: Type.Optional(hex(64)), ...SigninState,
        authAt: Type.Integer(), metricsEnabled: Type.Boolean(),
      }), ['ACCOUNT_UNKNOWN', 'INCORRECT_PASSWORD', 'INCORRECT_EMAIL_CASE', 'SERVER_BUSY', 'FAILED_TO_SEND_EMAIL'], { auth: true }),
    },
  }, async (req) => accounts.reauth(credentialsOf<SessionWithAccount>(req), loginInput(req.body, req.query)));

  app.post('/session/verify_code', {
    config: { auth: 'sessionToken' },
    schema: {
      tags: [TAG], summary: 'Confirm the session with an emailed code',
      description: 'The 6-digit code from the sign-up or sign-in email. Confirms the session (and the address, for a sign-up). A wrong code spends one of a few tries; then a new code is needed.',
      body: body({
        code: Type.String({ pattern: '^[0-9]{6,8}$', description: '6 to 8 digits.' }),
        service: Type.Optional(service),
        scopes: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 32 })),
        marketingOptIn: Type.Optional(Type.Boolean()),
        newsletters: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 })),
        metricsContext: Type.Optional(metricsContext),
      }),
      response: responses(Type.Object({}), ['INVALID_EXPIRED_OTP_CODE', 'EXPIRED_TOKEN_VERIFICATION_CODE'], { auth: true }),
    },
  }, async (req) => {
    await confirmations.confirmSession(credentialsOf<SessionWithAccount>(req), req.body.code, (err) =>
      req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
    return {};
  });

  app.post('/session/resend_code', {
    config: { auth: 'sessionToken' },
    schema: {
      tags: [TAG], summary: 'Email a new confirmation code',
      description: 'Sends a fresh 6-digit code for the pending sign-up or sign-in confirmation of this session; the previous code stops working. Nothing is sent when there is nothing to confirm.',
      body: body({ type: Type.Optional(Type.Literal('upgradeSession')), service: Type.Optional(service), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({}), ['FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT'], { auth: true }),
    },
  }, async (req) => {
    await confirmations.resendCode(credentialsOf<SessionWithAccount>(req), { service: req.body.service });
    return {};
  });
};
