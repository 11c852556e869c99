import type { HTTPMethods } from 'fastify';
import { credentialsOf } from '../../http/auth.js';
import type { Door } from '../../http/operation.js';
import type { Session } from '../sessions/index.js';
import type { MfaAction } from './jwt.js';

// Most /mfa routes are an existing operation reached a second time, with an MFA token instead of
// a confirmed session (protocol.md §5.1). The operation (http/operation.ts) declares both doors
// with one call:
//
//   const destroy = operation({
//     tags: [TAG], summary: 'Remove a secondary address', input: { body: EmailBody }, output: Type.Object({}),
//     errors: ['EMAIL_DELETE_PRIMARY'],
//     handle: async ({ caller, body, request }) => { await emails.destroy(caller.uid, body.email, request); return {}; },
//     doors: sessionOrMfa('email', { method: 'POST', path: '/recovery_email/destroy', operationId: 'recoveryEmailDestroy' }),
//   });
//
// The session door is the path as given; the MFA door is under /mfa, its operationId and summary
// say so. Both share the operation's rate-limit actions, so the MFA path never doubles a budget.

/** Who the request acts for, whichever way in: the account, and the session (for an MFA token, the one its code was sent to). */
export interface AccountCaller {
  uid: string;
  session: Session;
}

/** The session door and the MFA door of an operation; each adds the error of its way in. */
export function sessionOrMfa(action: MfaAction, route: { method: HTTPMethods; path: string; operationId: string }): Door<AccountCaller>[] {
  return [
    {
      ...route,
      auth: 'sessionTokenVerified',
      caller: (req) => {
        const session = credentialsOf(req, 'sessionTokenVerified');
        return { uid: session.uid, session };
      },
      errors: ['SESSION_UNVERIFIED'],
    },
    {
      ...route,
      prefix: '/mfa',
      operationId: `mfa${route.operationId[0]!.toUpperCase()}${route.operationId.slice(1)}`,
      summary: (text) => `${text}, with an MFA token`,
      auth: { strategies: ['mfa'], scope: `mfa:${action}` },
      caller: (req) => {
        const { uid, session } = credentialsOf(req, 'mfa');
        return { uid, session };
      },
      errors: ['INVALID_MFA_TOKEN'],
    },
  ];
}
