import { appError } from '@tessera/errors';
import type { OAuthClient } from './clients/store.js';
import { checkPairwiseScopes } from './ppid.js';

// Scopes as requests carry them (space-separated) and the one rule every grant and authorization
// applies: a client gets only the scopes it is registered for (and `openid`).

/** Scopes every client may ask for besides its allowed ones. */
const ALWAYS_ALLOWED = new Set(['openid']);

export function parseScope(raw: string | undefined): string[] {
  return [...new Set((raw ?? '').split(' ').filter(Boolean))];
}

/** Throws 400/163 for a scope the client is not allowed, or one that would show a pairwise client the uid. */
export function checkScopes(client: OAuthClient, scope: string[]): void {
  const invalid = scope.filter((s) => !ALWAYS_ALLOWED.has(s) && !client.allowedScopes.includes(s));
  if (invalid.length) throw appError('INVALID_SCOPES', { invalidScopes: invalid }, `Requested scopes are not allowed for this client: ${invalid.join(' ')}`);
  checkPairwiseScopes(client, scope);
}
