import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { body } from '../../http/schemas.js';
import { MFA_ACTIONS, type MfaAction } from './jwt.js';
import type { MfaService } from './service.js';

// POST /mfa/otp/request and /mfa/otp/verify (protocol.md §4.10). The /mfa routes that use the
// token live with the domain whose action they protect (e.g. /mfa/password/change in passwords),
// each declaring `config: { auth: mfaAuth('<action>') }`.

const TAG = 'MFA';
const action = Type.Union(MFA_ACTIONS.map((a) => Type.Literal(a)), { description: 'The protected action the token will be scoped to (`mfa:<action>`).' });
const pascal = (a: string) => a.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

export const mfaRoutes: FastifyPluginAsyncTypebox<{ mfa: MfaService }> = async (app, { mfa }) => {
  app.post('/mfa/otp/request', {
    config: {
      auth: 'sessionTokenVerified',
      // protocol.md §4.10: the customs action names the protected action (mfaOtpCodeRequestForRecoveryKey, …).
      rateLimit: { actions: [], byField: { field: 'action', actions: Object.fromEntries(MFA_ACTIONS.map((a) => [a, `mfaOtpCodeRequestFor${pascal(a)}`])) } },
    },
    schema: {
      tags: [TAG], summary: 'Email a step-up code for one protected action',
      description: 'Emails the account\'s primary address a 6-digit code for this session and action, valid MFA_OTP_LIFETIME_SECONDS (5 minutes by default). A new request replaces the code but not the count of wrong codes. Needs a confirmed session.',
      body: body({ action }),
      response: responses(Type.Object({ status: Type.Literal('success') }), ['SESSION_UNVERIFIED', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT'], { auth: true }),
    },
  }, async (req) => {
    await mfa.requestCode(credentialsOf(req, 'sessionTokenVerified'), req.body.action as MfaAction);
    return { status: 'success' as const };
  });

  app.post('/mfa/otp/verify', {
    config: { auth: 'sessionTokenVerified', rateLimit: { actions: ['mfaOtpCodeVerify'], failed: { INVALID_EXPIRED_OTP_CODE: 'mfaOtpCodeVerifyFailed' } } },
    schema: {
      tags: [TAG], summary: 'Exchange the step-up code for an MFA token',
      description: 'From the session the code was sent to. The right code (usable once) returns `accessToken`, a JWT scoped to `mfa:<action>` for MFA_JWT_LIFETIME_SECONDS (10 minutes), to send as `Authorization: Bearer <accessToken>` to the /mfa routes of that action. A wrong or expired code answers 400/183; each code allows MFA_OTP_TRIES wrong tries, the account a budget of wrong codes (then 429/114), and the wrong code that reaches MFA_OTP_MAX_FAILURES_PER_SESSION ends the session.',
      body: body({ code: Type.String({ pattern: '^[0-9]{6}$', description: 'The emailed 6 digits.' }), action }),
      response: responses(Type.Object({ accessToken: Type.String({ description: 'The MFA token (HS256 JWT).' }) }), ['SESSION_UNVERIFIED', 'INVALID_EXPIRED_OTP_CODE'], { auth: true }),
    },
  }, async (req) => mfa.verifyCode(credentialsOf(req, 'sessionTokenVerified'), req.body.action as MfaAction, req.body.code));
};
