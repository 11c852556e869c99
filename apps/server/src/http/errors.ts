import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError} from '@tessera/errors';
import { appError, isAppError } from '@tessera/errors';

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

function toAppError(err: FastifyError | Error): AppError | null {
  if (isAppError(err)) return err;
  const code = (err as FastifyError).code;
  if (code && FASTIFY_CODES[code]) return FASTIFY_CODES[code]();
  if (code === 'FST_ERR_FAILED_ERROR_SERIALIZATION' || code === 'FST_ERR_RESPONSE_SERIALIZATION') return null;
  if (err instanceof SyntaxError && (err as FastifyError).statusCode === 400) return appError('INVALID_JSON');
  return null;
}

export function sendAppError(reply: FastifyReply, err: AppError, deps: ErrorDeps): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply
    .status(err.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(err.toBody(`${deps.infoUrl}#errno-${err.errno}`)));
}

/** Every failure leaves the server as a catalogue error; anything unexpected is logged, not shown. */
export function installErrorHandling(app: FastifyInstance, deps: ErrorDeps): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = toAppError(err);
    if (known) {
      // Shedding load (503) is routine and can come in floods: not an error worth a log line each.
      if (known.status >= 500 && known.status !== 503) request.log.error({ reqId: request.id, err: known, errno: known.errno }, 'request failed');
      return sendAppError(reply, known, deps);
    }
    // Unexpected: full detail goes to the log under the request id; the body carries only the id.
    request.log.error({ reqId: request.id, err }, 'unexpected error');
    return sendAppError(reply, appError('UNEXPECTED_ERROR', { requestId: String(request.id) }), deps);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = (request.url.split("?")[0] ?? "").slice(0, 200);
    return sendAppError(reply, appError('ENDPOINT_NOT_FOUND', {}, `Unknown endpoint: ${request.method} ${path}`), deps);
  });
}
