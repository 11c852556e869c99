import type { FastifyRequest } from 'fastify';

/** What services may know about the caller, taken from the request once. */
export interface RequestContext {
  ip: string;
  userAgent: string | undefined;
  /** The Accept-Language header (first 255 characters): the account's language for emails. */
  acceptLanguage: string | null;
}

export function contextOf(request: FastifyRequest): RequestContext {
  const lang = request.headers['accept-language'];
  return {
    ip: request.ip,
    userAgent: request.headers['user-agent'],
    acceptLanguage: typeof lang === 'string' && lang ? lang.slice(0, 255) : null,
  };
}
