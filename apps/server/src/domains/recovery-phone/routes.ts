import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { operation, registerOperations } from '../../http/operation.js';
import { responses } from '../../http/responses.js';
import { body, metricsContext } from '../../http/schemas.js';
import { sessionOrMfa } from '../mfa/index.js';
import { isSessionVerified } from '../sessions/index.js';
import type { RecoveryPhoneService } from './service.js';

// The recovery phone routes of spec 1 §3 (protocol.md §4.9). Adding, changing and removing the
// phone are operations with two doors: a confirmed session, and under /mfa an MFA token scoped
// `mfa:2fa`. SMS sends are bounded by customs (recoveryPhoneSendCode); code checks by customs
// (recoveryPhoneCheck) and by the budget of wrong guesses that a resend does not reset (service.ts).

const TAG = 'Recovery phone';

// The grammar is checked by the service so that a bad number is 129, as the protocol says, not 107.
const phoneNumber = Type.String({ minLength: 1, maxLength: 32, description: 'E.164: a plus, then up to 15 digits, the first not 0 (else 129); its region must be allowed by RECOVERY_PHONE_REGIONS (else 130).' });
const code = Type.String({ pattern: '^[0-9]+$', minLength: 6, maxLength: 8, description: 'The 6-digit code from the SMS.' });
const success = Type.Object({ success: Type.Boolean() });
const SMS_ERRORS = ['FEATURE_NOT_ENABLED', 'BACKEND_SERVICE_FAILURE', 'THROTTLED'] as const;

export const recoveryPhoneRoutes: FastifyPluginAsyncTypebox<{ recoveryPhone: RecoveryPhoneService }> = async (app, { recoveryPhone }) => {
  app.get('/recovery_phone', {
    config: { auth: { strategies: ['sessionToken', 'passwordForgotTokenProven'], unconfirmed: 'A waiting sign-in asks whether the phone can stand in for the app: the number masked to its last four digits (the national format needs a confirmed session).' } },
    schema: {
      tags: [TAG], summary: 'The account\'s recovery phone',
      description: 'Whether the account has a recovery phone, and its number masked (`+1••••••0123`). With a confirmed session also `nationalFormat`, masked the same way. Works with a password forgot token that proved the address (that of `/password/forgot/verify_otp`; a token of `/password/forgot/send_code` gets 400/138), to offer the phone during a reset.',
      response: responses(Type.Object({
        exists: Type.Boolean(),
        phoneNumber: Type.Optional(Type.String({ description: 'Masked: country code and last four digits.' })),
        nationalFormat: Type.Optional(Type.String({ description: 'Masked national format, e.g. `(•••) •••-0123`.' })),
      }), ['SESSION_UNVERIFIED'], { input: false, auth: true }),
    },
  }, async (req) => {
    const creds = credentialsOf(req, 'sessionToken', 'passwordForgotTokenProven');
    const full = 'tokenVerificationId' in creds && isSessionVerified(creds);
    return recoveryPhone.get(creds.uid, full);
  });

  app.post('/recovery_phone/available', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Can the account add a recovery phone',
      description: '`available: true` when this server sends SMS, two-step authentication is on with backup codes, and the account has no phone yet.',
      body: body({ metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({ available: Type.Boolean() }), ['SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => recoveryPhone.available(credentialsOf(req, 'sessionTokenVerified').uid));

  registerOperations(app, [
    operation({
      tags: [TAG], summary: 'Send a code to a new recovery phone',
      description: 'Texts a 6-digit code (10 minutes) to the number; `/recovery_phone/confirm` with it adds the phone, or `/recovery_phone/change` makes it replace the current one. Needs two-step authentication on with backup codes (216). 129 bad number, 130 region not allowed, 214 the account\'s own number, 217 a number already serving 5 accounts, 202 when the server sends no SMS.',
      input: { body: body({ phoneNumber, metricsContext: Type.Optional(metricsContext) }) },
      output: Type.Object({ success: Type.Boolean(), nationalFormat: Type.Optional(Type.String({ description: 'The number in its national format, e.g. `(415) 555-0123`.' })) }),
      errors: ['INVALID_PHONE_NUMBER', 'INVALID_REGION', 'RECOVERY_PHONE_BACKUP_CODES_REQUIRED', 'RECOVERY_PHONE_NUMBER_ALREADY_EXISTS', 'RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED', ...SMS_ERRORS],
      rateLimit: { actions: ['recoveryPhoneSendCode'] },
      handle: ({ caller, body }) => recoveryPhone.create(caller.uid, body.phoneNumber),
      doors: sessionOrMfa('2fa', { method: 'POST', path: '/recovery_phone/create', operationId: 'recoveryPhoneCreate' }),
    }),
    operation({
      tags: [TAG], summary: 'Add the recovery phone',
      description: 'The code texted by `/recovery_phone/create` makes its number the account\'s recovery phone, and the account is emailed. 183 wrong or expired code (wrong guesses are bounded; a resend does not reset them), 214 when the account already has a phone (use change), 215 when no code was sent.',
      input: { body: body({ code }) },
      output: success,
      errors: ['INVALID_EXPIRED_OTP_CODE', 'RECOVERY_PHONE_NUMBER_ALREADY_EXISTS', 'RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', 'RECOVERY_PHONE_BACKUP_CODES_REQUIRED', 'RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED', 'THROTTLED'],
      rateLimit: { actions: ['recoveryPhoneCheck'] },
      handle: ({ caller, body, request }) => recoveryPhone.confirmSetup(caller.uid, body.code, 'add', request),
      doors: sessionOrMfa('2fa', { method: 'POST', path: '/recovery_phone/confirm', operationId: 'recoveryPhoneConfirm' }),
    }),
    operation({
      tags: [TAG], summary: 'Change the recovery phone',
      description: 'The code texted by `/recovery_phone/create` to a new number makes it replace the account\'s recovery phone, and the account is emailed. 183 wrong or expired code, 215 when the account has no phone or no code was sent.',
      input: { body: body({ code }) },
      output: success,
      errors: ['INVALID_EXPIRED_OTP_CODE', 'RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', 'RECOVERY_PHONE_BACKUP_CODES_REQUIRED', 'RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED', 'THROTTLED'],
      rateLimit: { actions: ['recoveryPhoneCheck'] },
      handle: ({ caller, body, request }) => recoveryPhone.confirmSetup(caller.uid, body.code, 'change', request),
      doors: sessionOrMfa('2fa', { method: 'POST', path: '/recovery_phone/change', operationId: 'recoveryPhoneChange' }),
    }),
    operation({
      tags: [TAG], summary: 'Remove the recovery phone',
      description: 'Removes the recovery phone and emails the account. 215 when there is none.',
      input: {},
      output: Type.Object({}),
      errors: ['RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST'],
      handle: async ({ caller, request }) => {
        await recoveryPhone.remove(caller.uid, request);
        return {};
      },
      doors: sessionOrMfa('2fa', { method: 'DELETE', path: '/recovery_phone', operationId: 'recoveryPhoneDelete' }),
    }),
  ]);

  app.post('/recovery_phone/signin/send_code', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It texts a waiting sign-in its second-factor code, to the account\'s own phone.' }, rateLimit: { actions: ['recoveryPhoneSendCode'] } },
    schema: {
      tags: [TAG], summary: 'Text a sign-in code to the recovery phone',
      description: 'For a sign-in waiting for its second factor: texts a 6-digit code (10 minutes) to the account\'s recovery phone. 215 without a phone; 429/114 while the wrong guesses at earlier codes are used up.',
      body: body({ metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({}), ['RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', ...SMS_ERRORS], { auth: true }),
    },
  }, async (req) => {
    await recoveryPhone.sendTo(credentialsOf(req, 'sessionToken').uid, 'signin');
    return {};
  });

  app.post('/recovery_phone/signin/confirm', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It is how a waiting sign-in passes the second factor with the texted code.' }, rateLimit: { actions: ['recoveryPhoneCheck'] } },
    schema: {
      tags: [TAG], summary: 'Confirm the sign-in with the texted code',
      description: 'The code confirms the session with `sms-2fa` (AAL2), like a code from the authenticator app, and the account is emailed. 183 wrong or expired code.',
      body: body({ code }),
      response: responses(Type.Object({}), ['INVALID_EXPIRED_OTP_CODE', 'RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => {
    await recoveryPhone.confirmSignin(credentialsOf(req, 'sessionToken'), req.body.code, contextOf(req));
    return {};
  });

  app.post('/recovery_phone/reset_password/send_code', {
    config: { auth: 'passwordForgotTokenProven', rateLimit: { actions: ['recoveryPhoneSendCode'] } },
    schema: {
      tags: [TAG], summary: 'Text a password-reset code to the recovery phone',
      description: 'During a password reset on a two-step account, with the password forgot token of `/password/forgot/verify_otp` (one that proved the address; a token of `/password/forgot/send_code` gets 400/138 and nothing is sent): texts a 6-digit code to the recovery phone. 215 without a phone.',
      body: body({ metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({}), ['RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', 'SESSION_UNVERIFIED', ...SMS_ERRORS], { auth: true }),
    },
  }, async (req) => {
    await recoveryPhone.sendTo(credentialsOf(req, 'passwordForgotTokenProven').uid, 'reset');
    return {};
  });

  app.post('/recovery_phone/reset_password/confirm', {
    config: { auth: 'passwordForgotTokenProven', rateLimit: { actions: ['recoveryPhoneCheck'] } },
    schema: {
      tags: [TAG], summary: 'Pass the reset\'s second factor with the texted code',
      description: 'The code marks the password forgot token (and the account reset token it yields) as verified with `sms-2fa`, so `/account/reset` may proceed on a two-step account. The account is emailed. 183 wrong or expired code; 138 for a forgot token that has not proven the address (see send_code).',
      body: body({ code }),
      response: responses(Type.Object({}), ['INVALID_EXPIRED_OTP_CODE', 'RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', 'SESSION_UNVERIFIED', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => {
    const token = credentialsOf(req, 'passwordForgotTokenProven');
    await recoveryPhone.confirmReset(token.uid, token.id, req.body.code, contextOf(req));
    return {};
  });
};
