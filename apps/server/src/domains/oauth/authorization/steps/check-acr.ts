import { appError } from '@tessera/errors';
import { authenticationOf } from '../../grants/grant.js';
import type { AuthorizationStep } from '../request.js';

/**
 * `acr_values` AAL2 needs a session confirmed with two-step authentication (400/170). The door's
 * strategy (sessionTokenVerified) already let only a session at the account's AAL through (issue 22).
 */
export const checkAcr: AuthorizationStep = (a) => {
  const { aal } = authenticationOf(a.session);
  if (a.request.acr_values?.split(' ').includes('AAL2') && aal < 2) throw appError('INSUFFICIENT_ACR_VALUES', { foundValue: `AAL${aal}` });
  return a;
};
