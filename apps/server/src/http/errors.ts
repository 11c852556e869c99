import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { AppError, OAuthError } from '@tessera/errors';
import { appError, AUTH_ERRORS, isAppError, toOAuthError } from '@tessera/errors';
import { normaliseAuth } from './auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `oauth`: an OAuth-server route (protocol.md §6): its errors are answered from the OAuth
     * catalogue, each auth-catalogue error turned into its twin. Declare them with `oauthResponses`.
     */
    catalogue?: 'oauth';
    /**
     * An OAuth-server route without a session whose body may carry `assertion` (POST /token): the
     * person is named by an assertion there, so its INVALID_TOKEN is an invalid assertion (401/104)
     * as on the session routes. Declare it with `oauthResponses(…, { assertion: true })`.
     */
    assertion?: true;
  }
}

export interface ErrorDeps {
  /** The page documenting error bodies; each body's `info` links to its errno on it. */
  infoUrl: string;
}

// Fastify's own failures, by code, mapped to the catalogue.
const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => appError('REQUEST_TOO_LARGE'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => appError('REQUEST_TOO_LARGE'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => appError('UNSUPPORTED_MEDIA_TYPE'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => appError('INVALID_JSON'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => appError('INVALID_JSON'),
};

const MALFORMED_STATUSES: readonly number[] = [400, ...(AUTH_ERRORS.MALFORMED_REQUEST.otherStatuses ?? [])];

/** A client fault by HTTP status: the catalogue's malformed-request error with that status (400 otherwise). */
export function malformedRequest(status: number, reason: string): AppError {
  // The reason can quote the URL; its query string can hold codes and tokens, which never go back
  // out in a body or into a log line.
  const safe = reason.replace(/\?[^\s'"]*/g, '?…').slice(0, 200);
  return appError('MALFORMED_REQUEST', {}, `Malformed request: ${safe}`, MALFORMED_STATUSES.includes(status) ? status : 400);
}

function toAppError(err: FastifyError | Error): AppError | null {
  if (isAppError(err)) return err;
  const code = (err as FastifyError).code;
  if (code && FASTIFY_CODES[code]) return FASTIFY_CODES[code]();
  if (code === 'FST_ERR_FAILED_ERROR_SERIALIZATION' || code === 'FST_ERR_RESPONSE_SERIALIZATION') return null;
  if (err instanceof SyntaxError && (err as FastifyError).statusCode === 400) return appError('INVALID_JSON');
  // Any other fault the framework or the socket blames on the client (a method without a
  // Content-Type, a body cut short, …) stays a 4xx: a client cannot make the server answer 5xx.
  const status = (err as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) return malformedRequest(status, err.message);
  if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || err.message === 'aborted') return malformedRequest(400, 'the request body was cut short');
  return null;
}

export function sendAppError(reply: FastifyReply, err: AppError | OAuthError, deps: ErrorDeps): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  const anchor = err instanceof Error && err.name === 'OAuthError' ? 'oauth-errno' : 'errno';
  return reply
    .status(err.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(err.toBody(`${deps.infoUrl}#${anchor}-${err.errno}`)));
}

/** The error as the route answers it: OAuth-server routes answer from the OAuth catalogue. */
function inCatalogue(request: FastifyRequest, err: AppError): AppError | OAuthError {
  const config = request.routeOptions.config;
  if (config?.catalogue !== 'oauth') return err;
  return toOAuthError(err, { session: normaliseAuth(config.auth) !== null || config.assertion === true });
}

/** Every failure leaves the server as a catalogue error; anything unexpected is logged, not shown. */
export function installErrorHandling(app: FastifyInstance, deps: ErrorDeps): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = toAppError(err);
    if (known) {
      // Shedding load (503) is routine and can come in floods: not an error worth a log line each.
      if (known.status >= 500 && known.status !== 503) request.log.error({ reqId: request.id, err: known, errno: known.errno }, 'request failed');
      // A client's fault is the client's: worth a line at info, never an error.
      else if (known.name === 'MALFORMED_REQUEST') request.log.info({ reqId: request.id, status: known.status, reason: known.message }, 'malformed request');
      return sendAppError(reply, inCatalogue(request, known), deps);
    }
    // Unexpected: full detail goes to the log under the request id; the body carries only the id.
    request.log.error({ reqId: request.id, err }, 'unexpected error');
    return sendAppError(reply, inCatalogue(request, appError('UNEXPECTED_ERROR', { requestId: String(request.id) })), deps);
  });
  // Issue 22: a path that exists, asked with a method it does not have, is 405 with Allow (RFC 9110
  // §15.5.6), not an unknown endpoint. The router is asked with each method any route uses.
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
  });
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '';
    const path = url.slice(0, 200);
    const allow = [...methods].filter((method) => app.findRoute({ method: method as HTTPMethods, url }) !== null).sort();
    // A route that sends its own request here (none does today) has the method: that is a 404.
    if (allow.length && !allow.includes(request.method)) {
      reply.header('allow', allow.join(', '));
      return sendAppError(reply, appError('MALFORMED_REQUEST', {}, `Method not allowed: ${request.method} ${path} accepts only ${allow.join(', ')}`, 405), deps);
    }
    return sendAppError(reply, appError('ENDPOINT_NOT_FOUND', {}, `Unknown endpoint: ${request.method} ${path}`), deps);
  });
}

/**
 * Faults Node's HTTP parser finds before there is a request (a header section over the limit, a
 * raw 0xFF in the request line, Content-Length with Transfer-Encoding): answered on the socket in
 * the catalogue's shape, then the connection closes. Fastify's `clientErrorHandler`.
 */
export function clientErrorResponder(deps: ErrorDeps) {
  return (err: Error, socket: Socket): void => {
    const code = (err as NodeJS.ErrnoException).code;
    if (!socket.writable || code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const reason = status === 431 ? 'the header section is too large' : status === 408 ? 'the request took too long to arrive' : 'the request could not be parsed as HTTP/1.1';
    const e = malformedRequest(status, reason);
    const body = JSON.stringify(e.toBody(`${deps.infoUrl}#errno-${e.errno}`));
    socket.end(`HTTP/1.1 ${status} ${e.error}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  };
}

/** Fastify's `frameworkErrors`: a URL whose escapes do not decode (`/v1/%zz`) and the like. */
export function frameworkErrorResponder(deps: ErrorDeps) {
  return (err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    void sendAppError(reply, malformedRequest(err.statusCode ?? 400, err.message), deps);
  };
}
