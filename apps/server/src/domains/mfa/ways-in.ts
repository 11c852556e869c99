import type { FastifyRequest } from 'fastify';
import { credentialsOf, type RouteAuthConfig } from '../../http/auth.js';
import type { MfaAction } from './jwt.js';

// Most /mfa routes are an existing route a second time, with an MFA token instead of a confirmed
// session (protocol.md §5.1). A domain declares such a route once, in a loop over `waysIn(action)`:
//
//   for (const w of waysIn('email')) {
//     app.post(`${w.prefix}/recovery_email/destroy`, {
//       config: { auth: w.auth },
//       schema: { tags: [TAG], summary: w.summary('Remove a secondary address'), operationId: w.operationId('recoveryEmailDestroy'),
//                 response: responses(…, ['EMAIL_DELETE_PRIMARY', ...w.errors], { auth: true }) },
//     }, async (req) => service.destroy(w.uid(req), …));
//   }
//
// Both variants share the route's rate-limit actions, so the MFA path never doubles a budget.

export interface WayIn {
  /** '' for the session route, '/mfa' for its MFA variant. */
  prefix: '' | '/mfa';
  auth: RouteAuthConfig;
  /** The account the request acts on. */
  uid(req: FastifyRequest): string;
  summary(text: string): string;
  operationId(id: string): string;
  /** The error the way in adds to the route's list. */
  errors: ['SESSION_UNVERIFIED'] | ['INVALID_MFA_TOKEN'];
}

export function waysIn(action: MfaAction): WayIn[] {
  return [
    {
      prefix: '',
      auth: 'sessionTokenVerified',
      uid: (req) => credentialsOf(req, 'sessionTokenVerified').uid,
      summary: (text) => text,
      operationId: (id) => id,
      errors: ['SESSION_UNVERIFIED'],
    },
    {
      prefix: '/mfa',
      auth: { strategies: ['mfa'], scope: `mfa:${action}` },
      uid: (req) => credentialsOf(req, 'mfa').uid,
      summary: (text) => `${text}, with an MFA token`,
      operationId: (id) => `mfa${id[0]!.toUpperCase()}${id.slice(1)}`,
      errors: ['INVALID_MFA_TOKEN'],
    },
  ];
}
