import { appError } from '@tessera/errors';
import { redirectUriMatches } from '../../clients/registration.js';
import { clientOf, type AuthorizationStep } from '../request.js';

/** A `redirect_uri`, when sent, is one the client registered (exactly; loopback clients any port): else 400/167. */
export const checkRedirectUri: AuthorizationStep = (a) => {
  const uri = a.request.redirect_uri;
  if (uri !== undefined && !redirectUriMatches(clientOf(a), uri)) throw appError('INCORRECT_REDIRECT_URI', { redirectUri: uri });
  return a;
};
