import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { appError } from '@tessera/errors';
import type { Clock } from '../clock.js';
import type { ScryptPool } from '../crypto/scrypt-pool.js';
import { clientErrorResponder, frameworkErrorResponder, installErrorHandling } from '../http/errors.js';
import { installJsonParser } from '../http/body.js';
import { withDeclaredErrors } from '../http/responses.js';
import { hookList } from '../http/route-hooks.js';
import { SHARED_SCHEMAS } from '../http/schemas.js';
import { applySecurityHeaders } from '../http/security-headers.js';
import { installValidators } from '../http/validation.js';
import { LOG_REDACT } from '../process/logger.js';

// The HTTP server every domain's routes are registered on: Fastify with the catalogue's error
// shapes, and the hooks that apply to every route (turning requests away while closing, the errors
// every route declares, security headers, one log line per request, the scrypt capacity check).

/** How long a client turned away during shutdown should wait: another instance (or the restarted one) takes over. */
const CLOSING_RETRY_AFTER_SECONDS = 5;

export interface HttpServerOptions {
  logger?: FastifyBaseLogger | boolean;
  logLevel: string;
  bodyLimit: number;
  trustProxy: boolean;
  publicUrl: string;
}

export function createHttpServer(options: HttpServerOptions) {
  const errorDeps = { infoUrl: new URL('/ecosystem-platform/reference/errors', options.publicUrl).toString() };
  const server = Fastify({
    // A logger instance (tests collect lines) goes in loggerInstance; otherwise options or false.
    ...(typeof options.logger === 'object'
      ? { loggerInstance: options.logger }
      : {
          logger: options.logger === undefined
            // Database errors can quote the values of a failed statement (token ids are credentials).
            ? { level: options.logLevel, redact: LOG_REDACT }
            : options.logger,
        }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit,
    trustProxy: options.trustProxy,
    genReqId: () => randomUUID(),
    // No child logger per request (making one serializes its bindings every time): lines that need
    // the request id carry it themselves.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Faults before routing answer in the catalogue's shape too (issue 9, hole 5).
    clientErrorHandler: clientErrorResponder(errorDeps),
    frameworkErrors: frameworkErrorResponder(errorDeps),
    ajv: { customOptions: { strict: false } },
    // While closing, requests get the catalogue's 503/201 (the hook below), not Fastify's own body.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  installJsonParser(server);
  installValidators(server, SHARED_SCHEMAS);
  installErrorHandling(server, errorDeps);
  return server;
}

export type HttpServer = ReturnType<typeof createHttpServer>;

/** Adds `errors` to the declared responses of every route that `applies` to. */
function declareOnRoutes(server: HttpServer, errors: Parameters<typeof withDeclaredErrors>[1], applies: (names: string[]) => boolean): void {
  server.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, TSchema> | undefined;
    const auth = route.config?.auth;
    const names: string[] = typeof auth === 'string' ? [auth] : Array.isArray(auth) ? auth : auth?.strategies ?? [];
    if (response && !route.schema?.hide && applies(names)) route.schema = { ...route.schema, response: withDeclaredErrors(response, errors) };
  });
}

/** Hooks installed before auth: turning requests away while closing, and the errors that causes. */
export function installRouteHooks(server: HttpServer, deps: { closing: () => boolean }): void {
  // Shutting down: requests that arrive on connections still open are turned away with the
  // catalogue's 503/201, so every API route declares it.
  server.addHook('onRequest', (_request, reply, done) => {
    if (!deps.closing()) return done();
    reply.header('connection', 'close');
    done(appError('SERVER_BUSY', { retryAfter: CLOSING_RETRY_AFTER_SECONDS }, 'Service unavailable: this server is shutting down; retry after retryAfter seconds'));
  });
  declareOnRoutes(server, ['SERVER_BUSY'], () => true);
  // Issue 12: a confirmed session below its account's AAL (two-step on, not confirmed by a second
  // factor) is refused 400/222 by the sessionTokenVerified strategy, so every route using it declares it.
  declareOnRoutes(server, ['INSUFFICIENT_AAL'], (names) => names.includes('sessionTokenVerified'));
}

/** After auth and rate limits: the routes that stretch a password check the pool's capacity last. */
export function installCapacityCheck(server: HttpServer, scrypt: ScryptPool): void {
  // Routes that stretch a password turn a flood away before reading the body: while the scrypt
  // pool is full, each extra request costs as little as possible of the CPU the pool needs. A
  // route-level hook, so other routes do not pay for it.
  const capacityCheck = (_request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    try {
      scrypt.checkCapacity();
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
  server.addHook('onRoute', (route) => {
    if (!route.config?.stretches) return;
    route.onRequest = [...hookList(route.onRequest), capacityCheck];
  });
}

/** Hooks on every answer: the server time, no-store, security headers, one log line. */
export function installResponseHooks(server: HttpServer, deps: { clock: Clock; https: boolean }): void {
  const logRequests = ['trace', 'debug', 'info'].includes(server.log.level);
  const securityHeaders = { https: deps.https };
  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  server.addHook('onSend', (request, reply, payload, done) => {
    // protocol.md §0: successful responses carry the server time so clients can correct skew.
    reply.header('timestamp', String(Math.floor(deps.clock.now() / 1000)));
    if (request.url.startsWith('/v1/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    applySecurityHeaders(reply, securityHeaders);
    done(null, payload);
  });
  server.addHook('onResponse', (request, reply, done) => {
    // One line per request, without query strings: they can hold codes and tokens.
    if (logRequests) {
      request.log.info({ reqId: request.id, method: request.method, path: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    }
    done();
  });
}
