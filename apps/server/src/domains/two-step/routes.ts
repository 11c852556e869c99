import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { responses } from '../../http/responses.js';
import { body, metricsContext } from '../../http/schemas.js';
import { waysIn } from '../mfa/index.js';
import type { TwoStepService } from './service.js';

// The two-step routes of spec 1 (protocol.md §4.6, §4.7, §5.13). Those that change the second
// factor exist twice, for a confirmed session and, under /mfa, for an MFA token scoped `mfa:2fa`
// (waysIn). Routes that check a code share customs actions with their /mfa twin.

const TAG = 'Two-step authentication';
const BACKUP_TAG = 'Backup codes';

const totpCode = Type.String({ pattern: '^[0-9]+$', maxLength: 32, description: 'The 6 digits the authenticator app shows.' });
const backupCode = Type.String({ pattern: '^[a-zA-Z0-9]+$', minLength: 8, maxLength: 20, description: 'One backup code (letters and digits, case-insensitive).' });
const recoveryCodes = Type.Array(backupCode, { minItems: 1, maxItems: 8, description: '1 to 8 different codes, each 8–20 letters or digits.' });
const service = Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9\\-]*$', maxLength: 16 }));
const success = Type.Object({ success: Type.Boolean() });
const newSecret = Type.Object({
  qrCodeUrl: Type.String({ description: 'A `data:image/png;base64,…` QR code of the otpauth:// URI, for the app to scan.' }),
  secret: Type.String({ description: 'The shared secret in base32 (32 characters), for typing into the app. Shown this once.' }),
});

export const twoStepRoutes: FastifyPluginAsyncTypebox<{ twoStep: TwoStepService }> = async (app, { twoStep }) => {
  app.get('/totp/exists', {
    config: { auth: { strategies: ['sessionToken', 'passwordForgotTokenProven'], unconfirmed: 'A waiting sign-in asks whether it must pass the second factor.' } },
    schema: {
      tags: [TAG], summary: 'Is two-step authentication on',
      description: 'With a session (confirmed or not) or a password forgot token that proved the address (the token of `/password/forgot/verify_otp`; one of `/password/forgot/send_code` gets 400/138). `exists`: two-step is on; `verified`: the app proved a code (during setup, before `/totp/setup/complete`, `exists` is still false).',
      response: responses(Type.Object({ exists: Type.Boolean(), verified: Type.Boolean() }), ['SESSION_UNVERIFIED'], { input: false, auth: true }),
    },
  }, async (req) => twoStep.exists(credentialsOf(req, 'sessionToken', 'passwordForgotTokenProven').uid));

  app.post('/totp/create', {
    config: { auth: 'sessionTokenVerified', rateLimit: { actions: ['totpCreate'] } },
    schema: {
      tags: [TAG], summary: 'Start setting up an authenticator app',
      description: 'A new secret for the app (RFC 6238: SHA-1, 6 digits, 30 s) as a QR code and as text. Then `/totp/setup/verify` with a code from the app and `/totp/setup/complete`. 154 when two-step is already on; an unfinished setup starts again with a new secret.',
      body: body({ metricsContext: Type.Optional(metricsContext) }),
      response: responses(newSecret, ['TOTP_TOKEN_EXISTS', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => twoStep.create(credentialsOf(req, 'sessionTokenVerified').uid));

  for (const w of waysIn('2fa')) {
    app.post(`${w.prefix}/totp/setup/verify`, {
      config: { auth: w.auth, rateLimit: { actions: ['verifyTotpCode'] } },
      schema: {
        tags: [TAG], summary: w.summary('Check a code from the new app'), operationId: w.operationId('totpSetupVerify'),
        description: '`success: true` when the code is the app\'s (a code counts once); `false` otherwise (counted against the account\'s budget of wrong codes). 155 without a setup in progress, 154 when two-step is already on.',
        body: body({ code: totpCode, metricsContext: Type.Optional(metricsContext) }),
        response: responses(success, ['TOTP_TOKEN_NOT_FOUND', 'TOTP_TOKEN_EXISTS', 'THROTTLED', ...w.errors], { auth: true }),
      },
    }, async (req) => twoStep.setupVerify(w.uid(req), req.body.code));

    app.post(`${w.prefix}/totp/setup/complete`, {
      config: { auth: w.auth },
      schema: {
        tags: [TAG], summary: w.summary('Turn two-step authentication on'), operationId: w.operationId('totpSetupComplete'),
        description: 'After `/totp/setup/verify` succeeded: two-step is on, sign-ins need a second factor, and the account is emailed. The calling session (or the session the MFA token was issued to) proved the app: it is confirmed with `totp-2fa` (AAL2). 155 when no code was verified.',
        body: body({ metricsContext: Type.Optional(metricsContext) }),
        response: responses(success, ['TOTP_TOKEN_NOT_FOUND', 'TOTP_TOKEN_EXISTS', ...w.errors], { auth: true }),
      },
    }, async (req) => twoStep.setupComplete(w.uid(req), contextOf(req), w.prefix === '' ? credentialsOf(req, 'sessionTokenVerified') : credentialsOf(req, 'mfa').session));

    app.post(`${w.prefix}/totp/destroy`, {
      config: { auth: w.auth },
      schema: {
        tags: [TAG], summary: w.summary('Turn two-step authentication off'), operationId: w.operationId('totpDestroy'),
        description: 'Removes the app and the backup codes (and the recovery phone) and emails the account. With a session it must be confirmed by a second factor (on a two-step account anything less is 222). None is not an error.',
        response: responses(Type.Object({}), [...w.errors], { input: false, auth: true }),
      },
    }, async (req) => {
      await twoStep.destroy(w.uid(req), contextOf(req));
      return {};
    });

    app.post(`${w.prefix}/totp/replace/start`, {
      config: { auth: w.auth, rateLimit: { actions: ['totpCreate'] } },
      schema: {
        tags: [TAG], summary: w.summary('Start replacing the authenticator app'), operationId: w.operationId('totpReplaceStart'),
        description: 'A new secret for a new app; the current app keeps working until `/totp/replace/confirm` gets a code from the new one. 155 when two-step is off.',
        body: body({ metricsContext: Type.Optional(metricsContext) }),
        response: responses(newSecret, ['TOTP_TOKEN_NOT_FOUND', ...w.errors], { auth: true }),
      },
    }, async (req) => twoStep.replaceStart(w.uid(req)));

    app.post(`${w.prefix}/totp/replace/confirm`, {
      config: { auth: w.auth, rateLimit: { actions: ['verifyTotpCode'] } },
      schema: {
        tags: [TAG], summary: w.summary('Finish replacing the authenticator app'), operationId: w.operationId('totpReplaceConfirm'),
        description: 'A code from the new app makes it the account\'s (`success: true`) and emails the account; a wrong code answers `success: false`. 155 without a replacement in progress.',
        body: body({ code: totpCode, metricsContext: Type.Optional(metricsContext) }),
        response: responses(success, ['TOTP_TOKEN_NOT_FOUND', 'THROTTLED', ...w.errors], { auth: true }),
      },
    }, async (req) => twoStep.replaceConfirm(w.uid(req), req.body.code, contextOf(req)));

    app.get(`${w.prefix}/recoveryCodes`, {
      config: { auth: w.auth },
      schema: {
        tags: [BACKUP_TAG], summary: w.summary('New backup codes'), operationId: w.operationId('recoveryCodesGenerate'),
        description: 'Makes RECOVERY_CODE_COUNT (8) new codes of 10 characters, replacing every earlier one, and returns them this once (they are stored only hashed). Emails the account.',
        response: responses(Type.Object({ recoveryCodes: Type.Array(Type.String()) }), [...w.errors], { input: false, auth: true }),
      },
    }, async (req) => twoStep.generateCodes(w.uid(req), contextOf(req)));

    for (const method of ['post', 'put'] as const) {
      app[method](`${w.prefix}/recoveryCodes`, {
        config: { auth: w.auth },
        schema: {
          tags: [BACKUP_TAG], summary: w.summary(method === 'post' ? 'Store backup codes' : 'Replace backup codes'),
          operationId: w.operationId(method === 'post' ? 'recoveryCodesSet' : 'recoveryCodesUpdate'),
          description: 'Codes the client made (1–8 different codes of 8–20 letters or digits) replace every earlier one. Emails the account.',
          body: body({ recoveryCodes }),
          response: responses(success, [...w.errors], { auth: true }),
        },
      }, async (req) => twoStep.setCodes(w.uid(req), req.body.recoveryCodes, contextOf(req)));
    }
  }

  app.get('/recoveryCodes/exists', {
    config: { auth: { strategies: ['sessionToken', 'passwordForgotTokenProven'], unconfirmed: 'A waiting sign-in asks whether a backup code can stand in for the app.' } },
    schema: {
      tags: [BACKUP_TAG], summary: 'How many backup codes are left',
      description: 'With a session, or a password forgot token that proved the address (that of `/password/forgot/verify_otp`; else 400/138).',
      response: responses(Type.Object({ hasBackupCodes: Type.Boolean(), count: Type.Integer() }), ['SESSION_UNVERIFIED'], { input: false, auth: true }),
    },
  }, async (req) => twoStep.codesExist(credentialsOf(req, 'sessionToken', 'passwordForgotTokenProven').uid));

  app.post('/session/verify/totp', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It is how a waiting sign-in passes the second factor.' }, rateLimit: { actions: ['verifyTotpCode'] } },
    schema: {
      tags: [TAG], summary: 'Confirm the session with a code from the app',
      description: 'A right code (each code counts once) confirms the session with `totp-2fa` (AAL2): `success: true`. A wrong or replayed code answers `success: false` with status 200 and counts against the account\'s budget of wrong codes (then 429/114). 155 when two-step is off.',
      body: body({ code: totpCode, service, metricsContext: Type.Optional(metricsContext) }),
      response: responses(success, ['TOTP_TOKEN_NOT_FOUND', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => twoStep.verifySession(credentialsOf(req, 'sessionToken'), req.body.code, contextOf(req)));

  app.post('/session/verify/recoveryCode', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'It is how a waiting sign-in passes the second factor with a backup code.' }, rateLimit: { actions: ['verifyRecoveryCode'], failed: { RECOVERY_CODE_NOT_FOUND: 'verifyRecoveryCodeFailed' } } },
    schema: {
      tags: [BACKUP_TAG], summary: 'Confirm the session with a backup code',
      description: 'Spends the code (each works once) and confirms the session with `recovery-code` (AAL2); `remaining` says how many codes are left. Emails the account (asking for new codes when 2 or fewer remain). 156 for a code that is not one of the account\'s unused codes, 160 when two-step is off.',
      body: body({ code: backupCode, metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({ remaining: Type.Integer() }), ['RECOVERY_CODE_NOT_FOUND', 'TOTP_REQUIRED', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => twoStep.verifySessionWithCode(credentialsOf(req, 'sessionToken'), req.body.code, contextOf(req)));

  app.post('/totp/verify', {
    config: { auth: 'passwordForgotTokenProven', rateLimit: { actions: ['verifyTotpCode'] } },
    schema: {
      tags: [TAG], summary: 'Second factor during a password reset',
      description: 'With the password forgot token of `/password/forgot/verify_otp` (one that proved the address; a token of `/password/forgot/send_code` gets 400/138): a right code from the app (`success: true`) lets the reset that follows proceed on a two-step account without a recovery key (without it /account/reset answers 138). A wrong code: `success: false`.',
      body: body({ code: totpCode, metricsContext: Type.Optional(metricsContext) }),
      response: responses(success, ['TOTP_TOKEN_NOT_FOUND', 'SESSION_UNVERIFIED', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => {
    const token = credentialsOf(req, 'passwordForgotTokenProven');
    return twoStep.verifyForgot(token.uid, token.id, req.body.code);
  });

  app.post('/totp/verify/recoveryCode', {
    config: { auth: 'passwordForgotTokenProven', rateLimit: { actions: ['verifyRecoveryCode'], failed: { RECOVERY_CODE_NOT_FOUND: 'verifyRecoveryCodeFailed' } } },
    schema: {
      tags: [BACKUP_TAG], summary: 'Backup code during a password reset',
      description: 'With the password forgot token of `/password/forgot/verify_otp` (else 400/138, as for `/totp/verify`): spends a backup code in place of the app\'s code; `remaining` codes are left. 156 unknown code, 160 two-step off.',
      body: body({ code: backupCode, metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({ remaining: Type.Integer() }), ['RECOVERY_CODE_NOT_FOUND', 'TOTP_REQUIRED', 'SESSION_UNVERIFIED', 'THROTTLED'], { auth: true }),
    },
  }, async (req) => {
    const token = credentialsOf(req, 'passwordForgotTokenProven');
    return twoStep.verifyForgotWithCode(token.uid, token.id, req.body.code);
  });
};
