import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { AUTH_ERRORS, isAppError, type AuthErrorName } from '@tessera/errors';
import { languagesOf } from '../../platform/request-context.js';
import { withDeclaredErrors } from '../../http/responses.js';
import { hookList } from '../../http/route-hooks.js';
import type { Customs, Subject } from './service.js';

/** What a route declares about rate limiting, in `config.rateLimit`. */
export interface RouteRateLimit {
  /** The customs actions a request to this route counts as (checked after validation, before the handler). */
  actions: string[];
  /**
   * Actions chosen by the value of one body field, counted besides `actions`: how /mfa/otp/request
   * counts as `mfaOtpCodeRequestFor<Action>` of the action it asks a code for.
   */
  byField?: { field: string; actions: Record<string, string> };
  /** Failures counted when the route answers with these errors (e.g. a wrong password → passwordCheckFailed). */
  failed?: Partial<Record<AuthErrorName, string>>;
  /**
   * A block (never a ban) reaches the handler in `request.customsBlock` instead of a 429: the
   * handler may let an unblock code lift it, and otherwise answers 400/125.
   */
  unblockable?: boolean;
  /**
   * A block (never a ban) reaches the handler in `request.customsBlock`, which answers 429 itself
   * after doing what a refused request still must (send_unblock_code keeps the last code alive).
   */
  handlesBlock?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RouteRateLimit;
    /** Set at startup: the action this endpoint counts as under the `default` rules (`POST__v1_account_login`). */
    customsEndpoint?: string;
  }
  interface FastifyRequest {
    /** Set on `unblockable` and `handlesBlock` routes when a block is in force: how long it lasts. */
    customsBlock: { retryAfterMs: number } | null;
  }
}

/** Protocol.md §7.1: `<METHOD>_<path with every non-alphanumeric character as _>`. */
export function endpointAction(method: string, url: string): string {
  return `${method}_${url.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** The account a request names: its credentials' account, or the email/uid in its body. */
export function subjectOf(request: FastifyRequest): Subject {
  const body = (request.body ?? {}) as { email?: unknown; uid?: unknown };
  const credentials = request.auth?.credentials as { uid?: string; account?: { email?: string } } | undefined;
  return {
    ip: request.ip,
    email: typeof body.email === 'string' ? body.email : credentials?.account?.email,
    uid: credentials?.uid ?? (typeof body.uid === 'string' ? body.uid : undefined),
  };
}

/**
 * Rate limiting on every API route: the per-endpoint check before the body is read, the route's
 * own actions after validation, its failures when it fails. Declares what that adds to each
 * route's errors, so OpenAPI, the SDK and the declared-error check know it.
 */
export function installRateLimits(server: FastifyInstance, customs: Customs): void {
  server.decorateRequest('customsBlock', null);
  server.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') || route.config?.auth === undefined) return;
    const limit = route.config.rateLimit;
    for (const action of [...(limit?.actions ?? []), ...Object.values(limit?.byField?.actions ?? {}), ...Object.values(limit?.failed ?? {})]) {
      if (!customs.knows(action)) throw new Error(`route ${route.method} ${route.url} names rate-limit action "${action}", which no rule has`);
    }
    if (limit?.failed) {
      for (const name of Object.keys(limit.failed)) if (!(name in AUTH_ERRORS)) throw new Error(`route ${route.url}: unknown error ${name}`);
    }
    const method = Array.isArray(route.method) ? route.method[0]! : route.method;
    route.config = { ...route.config, customsEndpoint: endpointAction(method, route.url) };
    const added: AuthErrorName[] = ['THROTTLED'];
    const counts = Boolean(limit?.actions.length || limit?.byField);
    if (counts) added.push('SERVER_BUSY');
    if (limit?.unblockable) added.push('REQUEST_BLOCKED');
    const response = route.schema?.response as Record<number, TSchema> | undefined;
    if (response) route.schema = { ...route.schema, response: withDeclaredErrors(response, added) };
    // The OpenAPI operation says what it counts as (the portal's rate-limiting page lists it).
    route.schema = {
      ...route.schema,
      'x-rate-limit': {
        endpoint: route.config.customsEndpoint,
        actions: limit?.actions ?? [],
        ...(limit?.byField ? { byField: limit.byField } : {}),
        ...(limit?.failed ? { failures: limit.failed } : {}),
        ...(limit?.unblockable ? { unblockable: true } : {}),
      },
    } as typeof route.schema;
    if (!customs.enabled) return;
    // Route-level hooks, so a route pays only for the checks it has: a global hook runs on every
    // request, including the many routes with no actions of their own.
    route.onRequest = [...hookList(route.onRequest), endpointCheck];
    if (counts) route.preHandler = [...hookList(route.preHandler), actionCheck];
  });

  if (!customs.enabled) return;

  function endpointCheck(request: FastifyRequest, _reply: FastifyReply, done: HookDone): void {
    const endpoint = request.routeOptions.config.customsEndpoint!;
    let pending: void | Promise<void>;
    try {
      pending = customs.checkEndpoint(endpoint, request.ip, () => languagesOf(header(request, 'accept-language')));
    } catch (err) {
      return done(err as Error);
    }
    if (pending) pending.then(() => done(), (err: Error) => done(err));
    else done();
  }

  // Runs after auth's preValidation and validation itself: the route's actions count only
  // well-formed requests, and know the account the credentials name.
  function actionCheck(request: FastifyRequest, _reply: FastifyReply, done: HookDone): void {
    const limit = request.routeOptions.config.rateLimit!;
    let actions = limit.actions;
    if (limit.byField) {
      const value = ((request.body ?? {}) as Record<string, unknown>)[limit.byField.field];
      const chosen = typeof value === 'string' && Object.hasOwn(limit.byField.actions, value) ? limit.byField.actions[value] : undefined;
      if (chosen) actions = [...actions, chosen];
    }
    customs.check(actions, subjectOf(request)).then((verdict) => {
      if (!verdict.blocked) return done();
      if ((limit.unblockable || limit.handlesBlock) && !verdict.banned) {
        request.customsBlock = { retryAfterMs: verdict.retryAfterMs };
        return done();
      }
      done(customs.throttled(verdict, languagesOf(header(request, 'accept-language'))));
    }, (err: Error) => done(err));
  }

  server.addHook('onError', async (request, _reply, error) => {
    const failed = request.routeOptions.config.rateLimit?.failed;
    if (!failed || !isAppError(error)) return;
    const action = failed[error.errorName];
    if (action) await customs.fail(action, subjectOf(request));
  });
}

type HookDone = (err?: Error) => void;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
