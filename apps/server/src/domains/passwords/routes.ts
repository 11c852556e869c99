import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { redirectToCheck } from '../../http/redirect.js';
import { responses } from '../../http/responses.js';
import {
  authPW, body, clientSalt, passwordBody, email, hex, hexUpTo, keysQuery, metricsContext, redirectTo, resume, service, sessionTokenId, uid, wrapKb,
} from '../../http/schemas.js';
import { mfaAuth } from '../mfa/index.js';
import type { PasswordsService } from './service.js';

const TAG = 'Password';
const hex64 = hex(64);
const v2Fields = {
  authPWVersion2: Type.Optional(hex(64)),
  wrapKbVersion2: Type.Optional(hex(64)),
  clientSalt: Type.Optional(clientSalt),
};
const forgotCode = Type.String({ pattern: '^(?:[0-9]{8}|[0-9]{16})$', description: 'The emailed code: 8 digits, or 16 where the send_code reply says codeLength 16.' });
const ForgotReply = { ttl: Type.Integer({ description: 'Seconds left.' }), codeLength: Type.Integer(), tries: Type.Integer() };
const forgotQuery = Type.Object({ service: Type.Optional(service), keys: Type.Optional(keysQuery) });

export interface PasswordRoutesDeps {
  passwords: PasswordsService;
  /** The origins `redirectTo` may name (PUBLIC_URL, CONTENT_URL, REDIRECT_ALLOWED_ORIGINS). */
  redirectOrigins: readonly string[];
}

export const passwordRoutes: FastifyPluginAsyncTypebox<PasswordRoutesDeps> = async (app, { passwords, redirectOrigins }) => {
  // Before rate limiting counts the request: a refused redirectTo changes nothing (issue 22).
  const redirectCheck = redirectToCheck(redirectOrigins);

  app.post('/password/change/start', {
    config: { auth: 'sessionTokenVerified', stretches: true, rateLimit: { actions: ['passwordChange'], failed: { INCORRECT_PASSWORD: 'passwordChangeStartFailed' } } },
    schema: {
      tags: [TAG], summary: 'Start a password change',
      description: 'Proves the old password (its authPW, stretched with the original sign-up email or the v2 salt). Returns a single-use passwordChangeToken and a key fetch token for the current keys: `keyFetchToken` for a v1 authPW, `keyFetchToken2` for a v2 one. Needs a confirmed session.',
      body: body({ email: email('The address the current password was stretched with.'), oldAuthPW: hex(64) }),
      response: responses(Type.Object({
        keyFetchToken: Type.Optional(hex64), keyFetchToken2: Type.Optional(hex64), passwordChangeToken: hex64, verified: Type.Boolean(),
      }), ['ACCOUNT_UNKNOWN', 'INCORRECT_PASSWORD', 'INCORRECT_EMAIL_CASE', 'SESSION_UNVERIFIED', 'SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => passwords.changeStart(credentialsOf(req, 'sessionTokenVerified'), req.body.email, req.body.oldAuthPW, contextOf(req)));

  app.post('/password/change/finish', {
    config: { auth: 'passwordChangeToken', stretches: true },
    schema: {
      tags: [TAG], summary: 'Finish a password change',
      description: 'Sets the new password; `wrapKb` is kB re-wrapped with the new unwrapBKey, so kB is unchanged. Ends every session and token of the account and, given `sessionToken` (the caller\'s session id), returns a new session in that session\'s state. Adding the version-2 fields to an unchanged v1 password is an upgrade and ends nothing.',
      querystring: Type.Object({ keys: Type.Optional(keysQuery) }),
      body: passwordBody({ authPW, wrapKb, ...v2Fields, sessionToken: Type.Optional(sessionTokenId) }),
      response: responses(Type.Object({
        uid: Type.Optional(uid), sessionToken: Type.Optional(hex64), verified: Type.Optional(Type.Boolean()), authAt: Type.Optional(Type.Integer()),
        keyFetchToken: Type.Optional(hex64), keyFetchToken2: Type.Optional(hex64),
      }), ['SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => passwords.changeFinish(credentialsOf(req, 'passwordChangeToken'), { ...req.body, keys: req.query.keys === true }, contextOf(req)));

  app.post('/mfa/password/change', {
    config: {
      auth: mfaAuth('password'), stretches: true,
      rateLimit: { actions: ['passwordChange'], failed: { INCORRECT_PASSWORD: 'passwordChangeStartFailed' } },
    },
    schema: {
      tags: [TAG], summary: 'Change the password with an MFA token',
      description: 'Start and finish of a password change in one request, with an MFA token scoped `mfa:password` instead of a session: proves `oldAuthPW` (stretched with `email`, by default the primary address), sets the new password (`wrapKb` is kB re-wrapped with the new unwrapBKey, so kB is unchanged), ends every other session and token, and returns a new session in the state of the session the token was issued to, which ends too. The MFA token ends with its session.',
      querystring: Type.Object({ keys: Type.Optional(keysQuery) }),
      body: passwordBody({ email: Type.Optional(email('The address the current password was stretched with.')), oldAuthPW: hex(64), authPW, wrapKb, ...v2Fields }),
      response: responses(Type.Object({
        uid: Type.Optional(uid), sessionToken: Type.Optional(hex64), verified: Type.Optional(Type.Boolean()), authAt: Type.Optional(Type.Integer()),
        keyFetchToken: Type.Optional(hex64), keyFetchToken2: Type.Optional(hex64),
      }), ['ACCOUNT_UNKNOWN', 'INCORRECT_PASSWORD', 'INCORRECT_EMAIL_CASE', 'SERVER_BUSY']),
    },
  }, async (req) => passwords.changeWithMfa(credentialsOf(req, 'mfa'), { ...req.body, keys: req.query.keys === true }, contextOf(req)));

  app.post('/password/forgot/send_code', {
    config: { auth: 'none', rateLimit: { actions: ['passwordForgotSendCode'] } },
    preHandler: redirectCheck,
    schema: {
      tags: [TAG], summary: 'Email a password reset code',
      description: 'Creates the account\'s password forgot token (a new one voids the old) and emails its code with a link to /complete_reset_password (carrying `service`, `redirectTo` and `resume`). The token expires after `ttl` seconds and allows `tries` wrong codes. An account whose address was never confirmed may reset too: the code comes through that mailbox, so the reset confirms the address. The token does not show the recovery key\'s hint or the second factor (400/138): it goes to whoever names the address; the token of `/password/forgot/verify_otp` does.',
      querystring: forgotQuery,
      body: body({ email: email(), service: Type.Optional(service), redirectTo: Type.Optional(redirectTo), resume: Type.Optional(resume), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({ passwordForgotToken: hex64, ...ForgotReply }), ['ACCOUNT_UNKNOWN', 'RESET_PASSWORD_WITH_SECONDARY_EMAIL', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT']),
    },
  }, async (req) => passwords.forgot.sendCode(req.body.email, { service: req.body.service ?? req.query.service, redirectTo: req.body.redirectTo, resume: req.body.resume }, contextOf(req)));

  app.post('/password/forgot/resend_code', {
    config: { auth: 'passwordForgotToken', rateLimit: { actions: ['passwordForgotResendCode'] } },
    preHandler: redirectCheck,
    schema: {
      tags: [TAG], summary: 'Email a new reset code for the same token',
      description: 'The token keeps its age and remaining tries; the reply says what is left. The previous code stops working.',
      querystring: Type.Object({ service: Type.Optional(service) }),
      body: body({ email: email(), service: Type.Optional(service), redirectTo: Type.Optional(redirectTo), resume: Type.Optional(resume), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object(ForgotReply), ['FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT'], { auth: true }),
    },
  }, async (req) => passwords.forgot.resendCode(credentialsOf(req, 'passwordForgotToken'), req.body.email));

  app.get('/password/forgot/status', {
    config: { auth: 'passwordForgotToken' },
    schema: {
      tags: [TAG], summary: 'Tries and time left on a forgot token',
      response: responses(Type.Object({ tries: Type.Integer(), ttl: Type.Integer() }), [], { input: false, auth: true }),
    },
  }, async (req) => passwords.forgot.status(credentialsOf(req, 'passwordForgotToken')));

  app.post('/password/forgot/verify_code', {
    config: { auth: 'passwordForgotToken', rateLimit: { actions: ['passwordForgotVerifyCode'], failed: { INVALID_VERIFICATION_CODE: 'passwordForgotVerifyCodeFailed' } } },
    schema: {
      tags: [TAG], summary: 'Exchange the reset code for an account reset token',
      description: 'The right code spends the forgot token and returns an accountResetToken (valid 15 minutes). A wrong code answers 105 with `tries` and `ttl` left; the last wrong try deletes the token.',
      body: body({
        code: forgotCode,
        accountResetWithRecoveryKey: Type.Optional(Type.Boolean()),
        includeRecoveryKeyPrompt: Type.Optional(Type.Boolean()),
        metricsContext: Type.Optional(metricsContext),
      }),
      response: responses(Type.Object({ accountResetToken: hex64 }), ['INVALID_VERIFICATION_CODE', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => passwords.forgot.verifyCode(credentialsOf(req, 'passwordForgotToken'), req.body.code));

  app.post('/password/forgot/send_otp', {
    config: { auth: 'none', rateLimit: { actions: ['passwordForgotSendOtp'] } },
    schema: {
      tags: [TAG], summary: 'Email an 8-digit reset code',
      description: 'The code is valid 10 minutes and a few tries; `/password/forgot/verify_otp` exchanges it for a forgot token.',
      querystring: forgotQuery,
      body: body({ email: email(), service: Type.Optional(service), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({}), ['ACCOUNT_UNKNOWN', 'RESET_PASSWORD_WITH_SECONDARY_EMAIL', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT']),
    },
  }, async (req) => {
    await passwords.forgot.sendOtp(req.body.email, contextOf(req));
    return {};
  });

  app.post('/password/forgot/verify_otp', {
    config: { auth: 'none', rateLimit: { actions: ['passwordForgotVerifyOtp', 'passwordForgotVerifyOtpPerDay'] } },
    schema: {
      tags: [TAG], summary: 'Exchange the 8-digit code for a forgot token',
      description: 'Returns a password forgot token and its code (`code`) for `/password/forgot/verify_code`, and the address to stretch the new password with.',
      body: body({ email: email(), code: Type.String({ pattern: '^[0-9]{8}$' }), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({ code: Type.String(), emailToHashWith: Type.String(), token: hex64, uid }), ['ACCOUNT_UNKNOWN', 'RESET_PASSWORD_WITH_SECONDARY_EMAIL', 'INVALID_VERIFICATION_CODE', 'EXPIRED_TOKEN_VERIFICATION_CODE', 'THROTTLED']),
    },
  }, async (req) => passwords.forgot.verifyOtp(req.body.email, req.body.code));

  app.post('/account/reset', {
    config: { auth: 'accountResetToken', stretches: true, rateLimit: { actions: [], failed: { RECOVERY_KEY_INVALID: 'recoveryKeyCheckFailed' } } },
    schema: {
      tags: [TAG], summary: 'Reset the password',
      description: 'Sets a new password with the accountResetToken (spent once the request passes schema validation, even when it then fails). Without a recovery key kB is replaced (and any recovery key deleted): v1 gets a random one; a v2 client sends wrapKb, wrapKbVersion2 and clientSalt for the kB it chose. With `recoveryKeyId` and `wrapKb` (kB from GET /recoveryKey/{recoveryKeyId}, re-wrapped) kB is kept and the key is spent (158 no key, 159 another key). Ends every session and token. `sessionToken: true` returns a new confirmed session; `?keys=true` needs it.',
      querystring: Type.Object({ keys: Type.Optional(keysQuery) }),
      body: passwordBody({
        authPW, wrapKb: Type.Optional(wrapKb), ...v2Fields,
        recoveryKeyId: Type.Optional(hexUpTo(32)),
        sessionToken: Type.Optional(Type.Boolean({ description: 'Return a new session.' })),
        isFirefoxMobileClient: Type.Optional(Type.Boolean()),
      }),
      response: responses(Type.Object({
        uid: Type.Optional(uid), sessionToken: Type.Optional(hex64), emailVerified: Type.Optional(Type.Boolean()), sessionVerified: Type.Optional(Type.Boolean()),
        verified: Type.Optional(Type.Boolean()), authAt: Type.Optional(Type.Integer()), verificationMethod: Type.Optional(Type.String()),
        keyFetchToken: Type.Optional(hex64), keyFetchTokenVersion2: Type.Optional(hex64),
      }), ['RECOVERY_KEY_NOT_FOUND', 'RECOVERY_KEY_INVALID', 'SESSION_UNVERIFIED', 'SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => {
    const token = credentialsOf(req, 'accountResetToken');
    return passwords.reset(token.uid, { ...req.body, keys: req.query.keys === true }, contextOf(req), token.verificationMethod);
  });

  app.post('/password/create', {
    config: { auth: 'sessionTokenVerified', stretches: true },
    schema: {
      tags: [TAG], summary: 'Set a password on an account without one',
      description: 'For accounts created without a password (e.g. through a linked account). 206 when the account has one.',
      body: passwordBody({ authPW, wrapKb: Type.Optional(wrapKb), ...v2Fields }),
      response: responses(Type.Object({ passwordCreated: Type.Integer({ description: 'Milliseconds since the epoch.' }) }), ['CANNOT_CREATE_PASSWORD', 'SESSION_UNVERIFIED', 'SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => passwords.create(credentialsOf(req, 'sessionTokenVerified'), req.body));
};
