import type { FastifyRequest } from 'fastify';
import { languagesOf, type RequestContext } from '../platform/request-context.js';

// The REST door's reading of the transport-neutral request context (platform/request-context.ts).

export function contextOf(request: FastifyRequest): RequestContext {
  const lang = request.headers['accept-language'];
  return {
    ip: request.ip,
    userAgent: request.headers['user-agent'],
    acceptLanguage: languagesOf(typeof lang === 'string' ? lang : undefined),
  };
}
