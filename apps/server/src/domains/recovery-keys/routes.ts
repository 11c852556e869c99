import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { appError } from '@tessera/errors';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { operation, registerOperations } from '../../http/operation.js';
import { responses } from '../../http/responses.js';
import { body, DISPLAY_SAFE_PATTERN, email, hexUpTo, metricsContext } from '../../http/schemas.js';
import { sessionOrMfa } from '../mfa/index.js';
import { isSessionVerified } from '../sessions/index.js';
import { forgotTokenProven } from '../tokens/index.js';
import type { RecoveryKeysService } from './service.js';

// The recovery key routes of spec 1 §3 (protocol.md §4.8, §5.14). Storing and removing the key also
// are operations with a second door, /mfa/recoveryKey, for an MFA token scoped `mfa:recovery_key`.

const TAG = 'Recovery key';

export const recoveryKeyId = hexUpTo(32, 'The key\'s fingerprint: HKDF(recoveryKey, salt = uid, "fxa recovery fingerprint", 16 bytes) in hex (at most 32 characters).');
// protocol.md §4.8: the server checks recoveryData only for shape; it never opens it.
export const recoveryData = Type.String({
  maxLength: 1024,
  pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
  description: 'kB encrypted under the recovery key: a compact JWE (alg dir, enc A256GCM, kid = recoveryKeyId), at most 1024 characters.',
});
const hint = Type.String({ maxLength: 255, pattern: DISPLAY_SAFE_PATTERN, description: 'Where the person keeps the key, in their words: at most 255 display-safe characters; empty clears it.' });

/**
 * Issue 22, hole 5: the hint goes only to whoever proved the address (a confirmed session, or the
 * forgot token of verify_otp); a waiting sign-in or a send_code token learns only `exists`.
 */
function provedAddress(req: FastifyRequest): boolean {
  return req.auth?.strategy === 'passwordForgotToken'
    ? forgotTokenProven(credentialsOf(req, 'passwordForgotToken'))
    : isSessionVerified(credentialsOf(req, 'sessionToken'));
}

export const recoveryKeyRoutes: FastifyPluginAsyncTypebox<{ recoveryKeys: RecoveryKeysService }> = async (app, { recoveryKeys }) => {
  app.get('/recoveryKey/:recoveryKeyId', {
    config: {
      auth: 'accountResetTokenUnspent',
      rateLimit: { actions: ['recoveryKeyCheck'], failed: { RECOVERY_KEY_INVALID: 'recoveryKeyCheckFailed' } },
    },
    schema: {
      tags: [TAG], summary: 'Fetch the encrypted kB for a reset', operationId: 'recoveryKeyGet',
      description: 'During a password reset: the recoveryData of the key whose fingerprint is in the path. The account reset token is not spent (the reset that follows spends it). 158 when the account has no key, 159 when the fingerprint is another key\'s (a mistyped key).',
      params: Type.Object({ recoveryKeyId }),
      response: responses(Type.Object({ recoveryData: Type.String() }), ['RECOVERY_KEY_NOT_FOUND', 'RECOVERY_KEY_INVALID'], { auth: true }),
    },
  }, async (req) => recoveryKeys.recoveryData(credentialsOf(req, 'accountResetTokenUnspent').uid, req.params.recoveryKeyId));

  app.post('/recoveryKey/exists', {
    config: {
      auth: { strategies: ['sessionToken', 'passwordForgotToken'], optional: true, unconfirmed: 'Only whether a key exists, as anyone may ask by address; the hint needs a confirmed session.' },
      rateLimit: { actions: ['recoveryKeyExists'] },
    },
    schema: {
      tags: [TAG], summary: 'Does the account have a recovery key',
      description: 'With a confirmed session or a password forgot token that proved the address (that of `/password/forgot/verify_otp`): whether the account has a key, and its hint. A session still waiting for its confirmation, or a forgot token of `/password/forgot/send_code` (anyone naming the address gets one), learns only `exists`. Anonymously, `email` is required and the answer is only `exists`: true for the confirmed primary address of an account with a key, false for any other address (unknown ones included).',
      body: body({ email: Type.Optional(email()), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({
        exists: Type.Boolean(),
        hint: Type.Optional(Type.String({ description: 'Only with a confirmed session or a forgot token that proved the address.' })),
      }), [], { auth: true }),
    },
  }, async (req) => {
    if (!req.auth) {
      if (req.body.email === undefined) throw appError('MISSING_PARAMETER', { param: 'email' }, 'Missing parameter in request body: email (required without a session or forgot token)');
      return recoveryKeys.existsForEmail(req.body.email);
    }
    const found = await recoveryKeys.exists(credentialsOf(req, 'sessionToken', 'passwordForgotToken').uid);
    return provedAddress(req) ? found : { exists: found.exists };
  });

  app.post('/recoveryKey/hint', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Set the recovery key\'s hint',
      description: 'A note shown by `/recoveryKey/exists` to whoever later needs the key. 158 without a key.',
      body: body({ hint }),
      response: responses(Type.Object({}), ['RECOVERY_KEY_NOT_FOUND', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    await recoveryKeys.setHint(credentialsOf(req, 'sessionTokenVerified').uid, req.body.hint);
    return {};
  });

  app.post('/recoveryKey/verify', {
    config: { auth: 'sessionTokenVerified', rateLimit: { actions: ['recoveryKeyCheck'], failed: { RECOVERY_KEY_INVALID: 'recoveryKeyCheckFailed' } } },
    schema: {
      tags: [TAG], summary: 'Confirm the recovery key',
      description: 'The person typed the key back: its fingerprint must match the stored key (158 none, 159 another). A key stored with `enabled: false` is enabled, and the account is emailed.',
      body: body({ recoveryKeyId }),
      response: responses(Type.Object({}), ['RECOVERY_KEY_NOT_FOUND', 'RECOVERY_KEY_INVALID', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    await recoveryKeys.verify(credentialsOf(req, 'sessionTokenVerified').uid, req.body.recoveryKeyId, contextOf(req));
    return {};
  });

  registerOperations(app, [
    operation({
      tags: [TAG], summary: 'Store a recovery key',
      description: 'Stores the account\'s recovery key: its fingerprint (kept only as a hash) and kB encrypted under it. With `enabled: false` the key waits for `/recoveryKey/verify`. An account has one key: replacing an enabled one needs `replaceKey: true` (else 161). Emails the account when the key counts.',
      input: {
        body: body({
          recoveryKeyId,
          recoveryData,
          enabled: Type.Optional(Type.Boolean({ default: true, description: 'False: wait for /recoveryKey/verify.' })),
          replaceKey: Type.Optional(Type.Boolean({ default: false, description: 'Replace the account\'s key.' })),
        }),
      },
      output: Type.Object({}),
      errors: ['RECOVERY_KEY_EXISTS'],
      rateLimit: { actions: ['recoveryKeyCreate'] },
      handle: async ({ caller, body, request }) => {
        await recoveryKeys.create(caller.uid, body, request);
        return {};
      },
      doors: sessionOrMfa('recovery_key', { method: 'POST', path: '/recoveryKey', operationId: 'recoveryKeyCreate' }),
    }),
    operation({
      tags: [TAG], summary: 'Remove the recovery key',
      description: 'Deletes the account\'s key (none is not an error) and emails the account when an enabled key went.',
      input: {},
      output: Type.Object({}),
      errors: [],
      handle: async ({ caller, request }) => {
        await recoveryKeys.remove(caller.uid, request);
        return {};
      },
      doors: sessionOrMfa('recovery_key', { method: 'DELETE', path: '/recoveryKey', operationId: 'recoveryKeyDelete' }),
    }),
  ]);
};
