import { appError } from '@tessera/errors';
import { clientOf, type AuthorizationStep } from '../request.js';

/** PKCE (RFC 7636): a challenge comes with method S256 (plain is refused), and a public client always sends one (400/169). */
export const checkPkce: AuthorizationStep = (a) => {
  const { code_challenge: challenge, code_challenge_method: method } = a.request;
  if (challenge !== undefined && method !== 'S256') {
    throw appError('MISSING_PKCE_PARAMETERS', {}, 'code_challenge_method must be S256 when a code_challenge is sent (plain is not supported)');
  }
  if (clientOf(a).publicClient && challenge === undefined) throw appError('MISSING_PKCE_PARAMETERS');
  return a;
};
