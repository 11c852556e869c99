import { appError } from '@tessera/errors';
import { allowedRedirect } from '../platform/redirect.js';

// Issue 22: a `redirectTo` off the allowed origins (platform/redirect.ts) is refused at the door
// with 400/107, as the incumbent does, so a client learns of its mistake at once instead of
// through a link that silently drops it.

/**
 * Refuses a body's `redirectTo` that is not an absolute http(s) URL on an allowed origin
 * (PUBLIC_URL, CONTENT_URL and REDIRECT_ALLOWED_ORIGINS): 400/107 naming the rule and the origins.
 */
export function checkRedirectTo(redirectTo: unknown, allowedOrigins: readonly string[]): void {
  if (redirectTo === undefined) return;
  if (typeof redirectTo === 'string' && allowedRedirect(redirectTo, allowedOrigins) !== null) return;
  const message = `redirectTo must be an absolute http(s) URL on an allowed origin (PUBLIC_URL, CONTENT_URL or REDIRECT_ALLOWED_ORIGINS: ${allowedOrigins.join(', ')})`;
  throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['redirectTo'], rule: 'allowedOrigin', message } }, `Invalid parameter in request body: ${message}`);
}

/**
 * The preHandler of a route whose body may name `redirectTo`: refuses one off the allowed origins
 * (checkRedirectTo) after validation and before the handler, so a refused request changes nothing.
 */
export function redirectToCheck(allowedOrigins: readonly string[]) {
  return async (req: { body: unknown }): Promise<void> => checkRedirectTo((req.body as { redirectTo?: unknown } | null)?.redirectTo, allowedOrigins);
}
