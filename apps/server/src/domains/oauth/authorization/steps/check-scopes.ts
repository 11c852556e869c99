import { appError } from '@tessera/errors';
import { checkScopes as checkAllowed, parseScope } from '../../scopes.js';
import { clientOf, type AuthorizationStep } from '../request.js';

/** The scopes (default `profile`): not empty, each allowed to the client, none showing a pairwise client the uid (400/163). */
export const checkScopes: AuthorizationStep = (a) => {
  const scope = parseScope(a.request.scope ?? 'profile');
  if (!scope.length) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'scope is empty');
  checkAllowed(clientOf(a), scope);
  return { ...a, scope };
};
