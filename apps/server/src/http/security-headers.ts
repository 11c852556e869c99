import type { FastifyReply } from 'fastify';

// Response headers every answer carries (issue 9, hole 11). The pages the server renders itself set
// a strict CSP with a nonce (domains/pages/html.ts); every other HTML answer (the portal) gets a CSP
// that forbids framing, plugins and base rewriting without constraining the built site's scripts.

/** `max-age` of Strict-Transport-Security: one year, the usual floor for preload lists. */
const HSTS = 'max-age=31536000; includeSubDomains';
const HTML_CSP = "frame-ancestors 'none'; base-uri 'self'; object-src 'none'; form-action 'self'";

export interface SecurityHeaders {
  /** PUBLIC_URL is https: browsers are told to use nothing else. */
  https: boolean;
}

/** Sets the headers on a reply about to be sent (called from the server's one onSend hook). */
export function applySecurityHeaders(reply: FastifyReply, options: SecurityHeaders): void {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
  if (options.https) reply.header('strict-transport-security', HSTS);
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && type.startsWith('text/html') && !reply.hasHeader('content-security-policy')) {
    reply.header('content-security-policy', HTML_CSP);
    reply.header('x-frame-options', 'DENY');
  }
}
