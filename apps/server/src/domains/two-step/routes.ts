import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { operation, registerOperations } from '../../http/operation.js';
import { responses } from '../../http/responses.js';
import { body, metricsContext } from '../../http/schemas.js';
import { sessionOrMfa } from '../mfa/index.js';
import type { TwoStepService } from './service.js';

// The two-step routes of spec 1 (protocol.md §4.6, §4.7, §5.13). Those that change the second
// factor exist twice, for a confirmed session and, under /mfa, for an MFA token scoped `mfa:2fa`
// (operations with two doors, http/operation.ts): both doors count as the same customs actions.

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

  const twoDoors = (method: 'GET' | 'POST' | 'PUT', path: string, operationId: string) => sessionOrMfa('2fa', { method, path, operationId });
  registerOperations(app, [
    operation({
      tags: [TAG], summary: 'Check a code from the new app',
      description: '`success: true` when the code is the app\'s (a code counts once); `false` otherwise (counted against the account\'s budget of wrong codes). 155 without a setup in progress, 154 when two-step is already on.',
      input: { body: body({ code: totpCode, metricsContext: Type.Optional(metricsContext) }) },
      output: success,
      errors: ['TOTP_TOKEN_NOT_FOUND', 'TOTP_TOKEN_EXISTS', 'THROTTLED'],
      rateLimit: { actions: ['verifyTotpCode'] },
      handle: ({ caller, body }) => twoStep.setupVerify(caller.uid, body.code),
      doors: twoDoors('POST', '/totp/setup/verify', 'totpSetupVerify'),
    }),
    operation({
      tags: [TAG], summary: 'Turn two-step authentication on',
      description: 'After `/totp/setup/verify` succeeded: two-step is on, sign-ins need a second factor, and the account is emailed. The calling session (or the session the MFA token was issued to) proved the app: it is confirmed with `totp-2fa` (AAL2). 155 when no code was verified.',
      input: { body: body({ metricsContext: Type.Optional(metricsContext) }) },
      output: success,
      errors: ['TOTP_TOKEN_NOT_FOUND', 'TOTP_TOKEN_EXISTS'],
      handle: ({ caller, request }) => twoStep.setupComplete(caller.uid, request, caller.session),
      doors: twoDoors('POST', '/totp/setup/complete', 'totpSetupComplete'),
    }),
    operation({
      tags: [TAG], summary: 'Turn two-step authentication off',
      description: 'Removes the app and the backup codes (and the recovery phone) and emails the account. With a session it must be confirmed by a second factor (on a two-step account anything less is 222). None is not an error.',
      input: {},
      output: Type.Object({}),
      errors: [],
      handle: async ({ caller, request }) => {
        await twoStep.destroy(caller.uid, request);
        return {};
      },
      doors: twoDoors('POST', '/totp/destroy', 'totpDestroy'),
    }),
    operation({
      tags: [TAG], summary: 'Start replacing the authenticator app',
      description: 'A new secret for a new app; the current app keeps working until `/totp/replace/confirm` gets a code from the new one. 155 when two-step is off.',
      input: { body: body({ metricsContext: Type.Optional(metricsContext) }) },
      output: newSecret,
      errors: ['TOTP_TOKEN_NOT_FOUND'],
      rateLimit: { actions: ['totpCreate'] },
      handle: ({ caller }) => twoStep.replaceStart(caller.uid),
      doors: twoDoors('POST', '/totp/replace/start', 'totpReplaceStart'),
    }),
    operation({
      tags: [TAG], summary: 'Finish replacing the authenticator app',
      description: 'A code from the new app makes it the account\'s (`success: true`) and emails the account; a wrong code answers `success: false`. 155 without a replacement in progress.',
      input: { body: body({ code: totpCode, metricsContext: Type.Optional(metricsContext) }) },
      output: success,
      errors: ['TOTP_TOKEN_NOT_FOUND', 'THROTTLED'],
      rateLimit: { actions: ['verifyTotpCode'] },
      handle: ({ caller, body, request }) => twoStep.replaceConfirm(caller.uid, body.code, request),
      doors: twoDoors('POST', '/totp/replace/confirm', 'totpReplaceConfirm'),
    }),
    operation({
      tags: [BACKUP_TAG], summary: 'New backup codes',
      description: 'Makes RECOVERY_CODE_COUNT (8) new codes of 10 characters, replacing every earlier one, and returns them this once (they are stored only hashed). Emails the account.',
      input: {},
      output: Type.Object({ recoveryCodes: Type.Array(Type.String()) }),
      errors: [],
      handle: ({ caller, request }) => twoStep.generateCodes(caller.uid, request),
      doors: twoDoors('GET', '/recoveryCodes', 'recoveryCodesGenerate'),
    }),
    ...(['POST', 'PUT'] as const).map((method) => operation({
      tags: [BACKUP_TAG], summary: method === 'POST' ? 'Store backup codes' : 'Replace backup codes',
      description: 'Codes the client made (1–8 different codes of 8–20 letters or digits) replace every earlier one. Emails the account.',
      input: { body: body({ recoveryCodes }) },
      output: success,
      errors: [],
      handle: ({ caller, body, request }) => twoStep.setCodes(caller.uid, body.recoveryCodes, request),
      doors: twoDoors(method, '/recoveryCodes', method === 'POST' ? 'recoveryCodesSet' : 'recoveryCodesUpdate'),
    })),
  ]);

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
