// Issue 22: `redirectTo` names where an emailed link or a page sends the user back to. Only the
// server's own origins and those the operator allows may be named (no open redirects through
// Tessera's mail). The rule, for the pages and links that follow it; http/redirect.ts refuses
// other values at the door.

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
