import { appError } from '@tessera/errors';
import type { AuthorizationStep } from '../request.js';

/** Only a confirmed account authorizes a relying party (400/104). */
export const checkAccount: AuthorizationStep = (a) => {
  if (!a.session.account.emailVerified) throw appError('ACCOUNT_UNVERIFIED');
  return a;
};
