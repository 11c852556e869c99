import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { operation, registerOperations } from '../../http/operation.js';
import { responses } from '../../http/responses.js';
import { body, email } from '../../http/schemas.js';
import { sessionOrMfa } from '../mfa/index.js';
import { meetsMinimumAal } from '../sessions/index.js';
import type { SecondaryEmails } from './service.js';

// Secondary (recovery) addresses: /recovery_emails and /recovery_email/* (spec 1 §7). Changes need
// a confirmed session (400/138 otherwise). Each change also exists under /mfa (protocol.md §5.1):
// the same route with an MFA token scoped `mfa:email` instead of the session.
// The changing routes need a session at the account's AAL (sessionTokenVerified); the list answers
// a session below it (a sign-in that proved only the password) with the primary address alone.

const TAG = 'Email';

/** The delivery errors of a route that emails a code. */
const SEND_ERRORS = ['FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT'] as const;

const EmailBody = body({ email: email('One of the account\'s addresses (compared without case).') });

export const secondaryEmailRoutes: FastifyPluginAsyncTypebox<{ emails: SecondaryEmails }> = async (app, { emails }) => {
  app.get('/recovery_emails', {
    config: {
      auth: {
        strategies: ['sessionToken'],
        unconfirmed: 'A waiting sign-in shows where its code went: it gets the primary address alone; the secondary addresses need a session confirmed at the account\'s AAL.',
      },
    },
    schema: {
      tags: [TAG], summary: 'List the account\'s addresses',
      description: 'Every address of the account, the primary first, then secondary addresses in the order they were added (confirmed or not). A session not confirmed at the account\'s AAL (a sign-in still waiting for its email code or second factor) gets the primary address alone.',
      response: responses(Type.Array(Type.Object({
        email: Type.String({ description: 'As typed when it was added.' }),
        verified: Type.Boolean(),
        isPrimary: Type.Boolean(),
      })), [], { input: false, auth: true }),
    },
  }, async (req) => {
    const session = credentialsOf(req, 'sessionToken');
    const list = await emails.list(session.uid);
    return meetsMinimumAal(session) ? list : list.filter((a) => a.isPrimary);
  });

  // The changing routes, each with two doors: a confirmed session, or an MFA token scoped mfa:email.
  const twoDoors = (path: string, operationId: string) => sessionOrMfa('email', { method: 'POST', path, operationId });
  registerOperations(app, [
    operation({
      tags: [TAG], summary: 'Add a secondary address',
      description: 'Adds the address unconfirmed and emails it a 6-digit code (for `/recovery_email/secondary/verify_code`); the primary gets a notice. The address is refused when it is this account\'s (139 primary, 136 secondary), another account\'s primary (140; 141 while that account is unconfirmed) or confirmed secondary (144), or another account\'s unconfirmed secondary added less than SECONDARY_EMAIL_PENDING_SECONDS ago (136); an older unconfirmed claim is removed and the address taken.',
      input: { body: EmailBody },
      output: Type.Object({}),
      errors: (door) => [
        'USER_PRIMARY_EMAIL_EXISTS', 'EMAIL_EXISTS', 'VERIFIED_PRIMARY_EMAIL_EXISTS', 'UNVERIFIED_PRIMARY_EMAIL_EXISTS', 'VERIFIED_SECONDARY_EMAIL_EXISTS',
        ...door, ...SEND_ERRORS,
      ],
      rateLimit: { actions: ['createEmail'] },
      handle: async ({ caller, body, request }) => {
        await emails.add(caller.uid, body.email, request);
        return {};
      },
      doors: twoDoors('/recovery_email', 'recoveryEmailCreate'),
    }),
    operation({
      tags: [TAG], summary: 'Remove a secondary address',
      description: 'Removes a secondary address, confirmed or not; the primary gets a notice. The primary cannot be removed (137).',
      input: { body: EmailBody },
      output: Type.Object({}),
      errors: ['EMAIL_DELETE_PRIMARY', 'SECONDARY_EMAIL_UNKNOWN'],
      handle: async ({ caller, body, request }) => {
        await emails.destroy(caller.uid, body.email, request);
        return {};
      },
      doors: twoDoors('/recovery_email/destroy', 'recoveryEmailDestroy'),
    }),
    operation({
      tags: [TAG], summary: 'Make a secondary address the primary',
      description: 'A confirmed secondary address becomes the primary: sign-in uses it (the old primary then gets 142) and account email goes to it. The old primary stays as a confirmed secondary address. Both get a notice. Password-reset codes and tokens and unblock codes sent to the old primary stop working. A version-1 password stays stretched with the address it was set with: sign-in with the new primary answers 120 naming that address (send it as `email`, the new primary as `originalLoginEmail`).',
      input: { body: EmailBody },
      output: Type.Object({}),
      errors: ['CHANGE_EMAIL_TO_UNVERIFIED_EMAIL', 'CHANGE_EMAIL_TO_UNOWNED_EMAIL'],
      handle: async ({ caller, body, request }) => {
        await emails.setPrimary(caller.uid, body.email, request);
        return {};
      },
      doors: twoDoors('/recovery_email/set_primary', 'recoveryEmailSetPrimary'),
    }),
    operation({
      tags: [TAG], summary: 'Email a new code to a secondary address',
      description: 'A new 6-digit code for an unconfirmed secondary address; the previous code stops working. Wrong codes already counted against the address stay counted. Nothing is sent for a confirmed address; 150 for an address that is not one of the account\'s secondary addresses.',
      input: { body: EmailBody },
      output: Type.Object({}),
      errors: (door) => ['RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL', ...door, ...SEND_ERRORS],
      rateLimit: { actions: ['recoveryEmailSecondaryResendCode'] },
      handle: async ({ caller, body }) => {
        await emails.resendCode(caller.uid, body.email);
        return {};
      },
      doors: twoDoors('/recovery_email/secondary/resend_code', 'recoveryEmailSecondaryResendCode'),
    }),
    operation({
      tags: [TAG], summary: 'Confirm a secondary address with its code',
      description: 'The 6-digit code emailed to the address. Each code allows SECONDARY_EMAIL_CODE_TRIES guesses (then 183: request a new code); an address that sees SECONDARY_EMAIL_MAX_FAILURES wrong codes across resends is removed. Wrong codes also count against the account (ACCOUNT_CODE_MAX_FAILURES: 429/114 with retryAfter). 153 when the code expired; 143 for an address that is not one of the account\'s secondary addresses.',
      input: {
        body: body({
          email: email('The secondary address the code was sent to.'),
          code: Type.String({ pattern: '^[0-9]{6,8}$', description: 'The emailed code: digits only.' }),
        }),
      },
      output: Type.Object({}),
      errors: ['SECONDARY_EMAIL_UNKNOWN', 'INVALID_EXPIRED_OTP_CODE', 'EXPIRED_TOKEN_VERIFICATION_CODE', 'THROTTLED'],
      rateLimit: { actions: ['recoveryEmailSecondaryVerifyCode'], failed: { INVALID_EXPIRED_OTP_CODE: 'recoveryEmailSecondaryVerifyCodeFailed' } },
      handle: async ({ caller, body, request }) => {
        await emails.verifyCode(caller.uid, body.email, body.code, request);
        return {};
      },
      doors: twoDoors('/recovery_email/secondary/verify_code', 'recoveryEmailSecondaryVerifyCode'),
    }),
  ]);
};
