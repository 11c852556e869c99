import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { contextOf } from '../../http/context.js';
import { responses } from '../../http/responses.js';
import { body, email, hex, metricsContext, redirectTo, resume, service, StringEnum, uid } from '../../http/schemas.js';
import { isSessionVerified } from '../sessions/index.js';
import type { Confirmations } from './service.js';

// Confirming by email: /recovery_email/* (links, the primary address) and the 6-digit code routes
// of a session (/session/verify_code, /session/resend_code).

const TAG = 'Email';

export const emailRoutes: FastifyPluginAsyncTypebox<{ confirmations: Confirmations }> = async (app, { confirmations }) => {
  app.get('/recovery_email/status', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'A waiting sign-in or sign-up asks whether the address and the session are confirmed yet.' } },
    schema: {
      tags: [TAG], summary: 'Is the primary address confirmed',
      response: responses(Type.Object({
        email: Type.String(),
        verified: Type.Boolean({ description: 'emailVerified and sessionVerified.' }),
        sessionVerified: Type.Boolean(),
        emailVerified: Type.Boolean(),
      }), [], { input: false, auth: true }),
    },
  }, async (req) => {
    const s = credentialsOf(req, 'sessionToken');
    const sessionVerified = isSessionVerified(s);
    return { email: s.account.email, verified: sessionVerified && s.account.emailVerified, sessionVerified, emailVerified: s.account.emailVerified };
  });

  app.post('/recovery_email/verify_code', {
    config: { auth: 'none', rateLimit: { actions: ['recoveryEmailVerifyCode'] } },
    schema: {
      tags: [TAG], summary: 'Confirm by the code of an emailed link',
      description: 'The link in the sign-up email carries the account\'s emailCode (confirms the address and the sign-up session); the link in a sign-in email carries that session\'s tokenVerificationId (confirms that session). On an account with two-step authentication no link confirms a session: a sign-in link answers 400/222 while its session waits for the second factor (/session/verify/totp, a backup code or the recovery phone).',
      body: body({
        uid,
        code: hex(32, 'The 32-hex code from the link.'),
        service: Type.Optional(service),
        reminder: Type.Optional(StringEnum(['first', 'second', 'final'] as const)),
        type: Type.Optional(Type.String({ maxLength: 32 })),
        style: Type.Optional(Type.Literal('trailhead')),
        marketingOptIn: Type.Optional(Type.Boolean()),
        newsletters: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 })),
        metricsContext: Type.Optional(metricsContext),
      }),
      response: responses(Type.Object({}), ['ACCOUNT_UNKNOWN', 'INVALID_VERIFICATION_CODE', 'INSUFFICIENT_AAL']),
    },
  }, async (req) => {
    await confirmations.verifyLinkCode(req.body.uid.toLowerCase(), req.body.code.toLowerCase(), contextOf(req), (err) =>
      req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
    return {};
  });

  app.post('/recovery_email/resend_code', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It sends the waiting session its confirmation link, to the account\'s own address; never for a sign-in waiting for the second factor (400/222).' }, rateLimit: { actions: ['recoveryEmailResendCode'] } },
    schema: {
      tags: [TAG], summary: 'Email the confirmation link again',
      description: 'Resends the sign-up link while the address is unconfirmed, or the sign-in link while the session is. Nothing is sent when both are confirmed. A sign-in waiting for the second factor (the account has two-step authentication) is sent nothing: 400/222.',
      body: body({
        email: Type.Optional(email()),
        service: Type.Optional(service),
        redirectTo: Type.Optional(redirectTo),
        resume: Type.Optional(resume),
        style: Type.Optional(Type.Literal('trailhead')),
        type: Type.Optional(Type.Literal('upgradeSession')),
        metricsContext: Type.Optional(metricsContext),
      }),
      response: responses(Type.Object({}), ['RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', 'INSUFFICIENT_AAL', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT'], { auth: true }),
    },
  }, async (req) => {
    await confirmations.resendLink(credentialsOf(req, 'sessionToken'), req.body.email, { service: req.body.service, redirectTo: req.body.redirectTo });
    return {};
  });

  app.post('/session/verify_code', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It confirms the waiting session with the code mailed to the account\'s address; never a sign-in waiting for the second factor (400/222).' }, rateLimit: { actions: ['verifySessionCode'], failed: { INVALID_EXPIRED_OTP_CODE: 'verifySessionCodeFailed' } } },
    schema: {
      tags: ['Session'], summary: 'Confirm the session with an emailed code',
      description: 'The 6-digit code from the sign-up or sign-in email. Confirms the session (and the address, for a sign-up). A wrong code spends one of a few tries; then a new code is needed. Wrong codes also count against the session across resends (at SIGNIN_CODE_MAX_FAILURES_PER_SESSION it ends: 401/110) and against the account (at ACCOUNT_CODE_MAX_FAILURES every code check is refused with 429/114 and retryAfter). A sign-in waiting for the second factor (the account has two-step authentication) is not confirmed by any emailed code: 400/222, before the code is checked.',
      body: body({
        code: Type.String({ pattern: '^[0-9]{6,8}$', description: '6 to 8 digits.' }),
        service: Type.Optional(service),
        scopes: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 32 })),
        marketingOptIn: Type.Optional(Type.Boolean()),
        newsletters: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 })),
        metricsContext: Type.Optional(metricsContext),
      }),
      response: responses(Type.Object({}), ['INVALID_EXPIRED_OTP_CODE', 'EXPIRED_TOKEN_VERIFICATION_CODE', 'INSUFFICIENT_AAL', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => {
    await confirmations.confirmSession(credentialsOf(req, 'sessionToken'), req.body.code, contextOf(req), (err) =>
      req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
    return {};
  });

  app.post('/session/resend_code', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It mails the waiting session a new code, to the account\'s own address; never for a sign-in waiting for the second factor (400/222).' }, rateLimit: { actions: ['sendVerifyCode'] } },
    schema: {
      tags: ['Session'], summary: 'Email a new confirmation code',
      description: 'Sends a fresh 6-digit code for the pending sign-up or sign-in confirmation of this session; the previous code stops working. Nothing is sent when there is nothing to confirm. A sign-in waiting for the second factor (the account has two-step authentication) is sent nothing: 400/222.',
      body: body({ type: Type.Optional(Type.Literal('upgradeSession')), service: Type.Optional(service), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({}), ['INSUFFICIENT_AAL', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT'], { auth: true }),
    },
  }, async (req) => {
    await confirmations.resendCode(credentialsOf(req, 'sessionToken'), { service: req.body.service });
    return {};
  });
};
