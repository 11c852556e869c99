import { appError } from '@tessera/errors';

// Issue 22: `redirectTo` names where an emailed link sends the user back to. Only the server's own
// origins and those the operator allows may be named (no open redirects through Tessera's mail);
// any other value is refused at the door with 400/107, as the incumbent does, so a client learns
// of its mistake at once instead of through a link that silently drops it.

/**
 * `target` as a URL to send the user to, when it is an http(s) URL on one of `allowedOrigins`; else
 * null. Emailed links and the server's own pages follow only such a `redirectTo`.
 */
export function allowedRedirect(target: string | undefined, allowedOrigins: readonly string[]): string | null {
  if (!target) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return allowedOrigins.includes(url.origin) ? url.href : null;
}

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
