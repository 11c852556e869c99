import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError, type AppError, type AuthErrorName } from '@tessera/errors';
import { TOKEN_TYPES, type TokenType } from '@tessera/protocol';
import { parseHawk, verifyHawk, type HawkConfig, type NonceStore, type ParsedHawk } from './hawk.js';
import type { Clock } from '../clock.js';
import { hookList } from './route-hooks.js';
import { signedPreHandler } from './signed-auth.js';
import { securityRequirements } from './auth-openapi.js';
import { withDeclaredErrors } from './responses.js';
import type { TSchema } from '@sinclair/typebox';

// Route authentication. Each route declares `config: { auth }` — a strategy name, a list of them
// (any may match), or `{ strategies, optional, scope }`. The OpenAPI document shows the same
// declaration as security requirements, so what is documented is what is enforced. Scoped
// strategies (the MFA step-up JWT) need the route to name the scope it requires: a route that
// names such a strategy without a scope is a startup error, like a route without `config.auth`.

/**
 * A token kind the server can look up by id. The id a request presents is a credential: it goes to
 * `find` and `authKey` only, and is never kept on the request; credentials carry handles instead.
 */
export interface TokenStrategy<C> {
  /**
   * onepw token type (Hawk or prefixed Bearer), `oauth` (unprefixed Bearer of an access token), or
   * `jwt` (`Bearer <compact JWS>`: `find` gets the whole token and proves it itself), or `signed`
   * (an inbound webhook's own signed credential, see signed-auth.ts).
   */
  kind: TokenType | 'oauth' | 'jwt' | 'signed';
  /** `signed` strategies: the credential the request carries (e.g. a JWT in its body), or null. */
  fromRequest?(request: FastifyRequest): string | null;
  /** May answer synchronously (from a cache) or with a promise. */
  find(id: string, now: number): C | null | Promise<C | null>;
  /** Hawk MAC key of the found credentials (onepw tokens only), given the id the request presented. */
  authKey?(credentials: C, id: string): string;
  /**
   * True once the token has been used with Hawk: a Hawk id travels in clear and may be logged on
   * the way, so from then on the id alone (Bearer) no longer authenticates.
   */
  hawkOnly?(credentials: C): boolean;
  /** Records the token's first request with a valid Hawk signature (see `hawkOnly`). */
  pinToHawk?(credentials: C): Promise<void>;
  /**
   * Single-use tokens are deleted once the request is valid (after schema validation, before the
   * handler): a malformed request keeps the token, a failing one spends it. False when another
   * request won the race.
   */
  consume?(credentials: C): Promise<boolean>;
  /** Further checks after the token is proven (e.g. "session must be verified", "has the route's scope"). */
  check?(credentials: C, route: RouteAuth): AppError | null;
  /**
   * The scopes routes may require of this strategy. When set, every route naming the strategy must
   * declare `auth.scope`, one of these (checked at startup).
   */
  scopes?: readonly string[];
  /**
   * The error a route whose strategies all share it answers when no token of theirs is presented
   * or found (default INVALID_TOKEN, 401/110). Added to the route's declared errors.
   */
  refusal?: AuthErrorName;
  /**
   * Session strategies: the least confirmed session they accept (see SessionState). A strategy
   * that accepts `unconfirmed` sessions obliges every route naming it to say why (`auth.unconfirmed`).
   */
  session?: SessionState;
  description: string;
}

/**
 * The minimum state of the session behind a request (issue 22): `unconfirmed` (the password was
 * proven, nothing else), `confirmed` (confirmed by email or a second factor), `aal` (confirmed at
 * the account's required assurance level: by a second factor once two-step authentication is on).
 */
export type SessionState = 'unconfirmed' | 'confirmed' | 'aal';
export const SESSION_STATES: readonly SessionState[] = ['unconfirmed', 'confirmed', 'aal'];

/**
 * The strategies routes can name, each with the credentials it yields. The domain that contributes
 * a strategy adds it here by module augmentation in its index.ts, so `http/` names no domain and
 * a route reading its credentials gets the type of the strategy it declared.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StrategyCredentials {}
export type StrategyName = keyof StrategyCredentials & string;
export type StrategyMap = { [N in StrategyName]?: TokenStrategy<StrategyCredentials[N]> };
export type AnyStrategy = TokenStrategy<unknown>;

export interface RouteAuth {
  strategies: StrategyName[];
  optional?: boolean;
  /** The scope the credentials must carry (strategies with `scopes` only, e.g. `mfa:password`). */
  scope?: string;
  /**
   * With `optional`: an `Authorization: Basic` header carries OAuth client credentials (RFC 6749
   * §2.3.1), which the route checks itself; the request goes on unauthenticated.
   */
  clientBasic?: boolean;
  /**
   * Why this route accepts a session that is not yet confirmed. Required whenever one of the
   * route's strategies accepts unconfirmed sessions: a route reaches an unconfirmed sign-in (which
   * proved the password only) by a deliberate, stated choice, never by default. The portal's
   * route table shows it.
   */
  unconfirmed?: string;
}

export type RouteAuthConfig = 'none' | StrategyName | StrategyName[] | RouteAuth;

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuthConfig;
    /** The route runs the server-side password stretch (scrypt): refused early when the pool is full. */
    stretches?: boolean;
  }
  interface FastifyRequest {
    auth: { strategy: StrategyName; credentials: unknown } | null;
    /** Spends the single-use token that authenticated the request (run after validation). */
    authSpend: (() => Promise<boolean>) | null;
  }
}

/** `'none'` declares a public route; null means "no authentication". */
export function normaliseAuth(config: RouteAuthConfig | undefined): RouteAuth | null {
  if (!config || config === 'none') return null;
  if (typeof config === 'string') return { strategies: [config] };
  if (Array.isArray(config)) return { strategies: config };
  return config;
}

const BEARER = /^Bearer ([a-z]+_)?([0-9a-f]{64})$/;
/** A compact JWS (RFC 7515 §7.1): three base64url parts; an unsigned token has an empty third part. */
const BEARER_JWT = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

export interface AuthDeps {
  strategies: StrategyMap;
  hawk: HawkConfig;
  nonces: NonceStore;
  clock: Clock;
}

interface Candidate {
  name: StrategyName;
  strategy: AnyStrategy;
  id: string;
  hawk: ParsedHawk | null;
}

const strategyOf = (deps: AuthDeps, name: StrategyName) => deps.strategies[name] as AnyStrategy;

/** The error for "no usable token": the route's strategies' shared refusal, else INVALID_TOKEN. */
function refusal(auth: RouteAuth, deps: AuthDeps, detail: string): AppError {
  const names = new Set(auth.strategies.map((name) => strategyOf(deps, name).refusal));
  const [only] = names;
  if (names.size === 1 && only && only !== 'INVALID_TOKEN') return appError(only, {} as never, `${appError(only).message}: ${detail}`);
  return appError('INVALID_TOKEN', { detail });
}

function candidates(header: string, auth: RouteAuth, deps: AuthDeps): Candidate[] {
  const out: Candidate[] = [];
  if (header.startsWith('Bearer ')) {
    const m = BEARER.exec(header);
    if (!m) {
      const jwt = BEARER_JWT.exec(header);
      if (!jwt) throw refusal(auth, deps, 'Malformed Bearer token');
      for (const name of auth.strategies) {
        const strategy = strategyOf(deps, name);
        // OAuth access tokens may be JWTs too (RFC 9068); the strategy proves them itself.
        if (strategy.kind === 'jwt' || strategy.kind === 'oauth') out.push({ name, strategy, id: jwt[1]!, hawk: null });
      }
      return out;
    }
    const [, prefix, id] = m as unknown as [string, string | undefined, string];
    for (const name of auth.strategies) {
      const strategy = strategyOf(deps, name);
      if (strategy.kind === 'jwt' || strategy.kind === 'signed') continue;
      const expected = strategy.kind === 'oauth' ? undefined : TOKEN_TYPES[strategy.kind].prefix;
      if (expected === prefix) out.push({ name, strategy, id, hawk: null });
    }
    return out;
  }
  if (/^Hawk\s/i.test(header)) {
    const signable = auth.strategies.filter((name) => !['oauth', 'jwt'].includes(strategyOf(deps, name).kind));
    // A route that takes no onepw token refuses Hawk as its own strategies would, unparsed.
    if (!signable.length) return out;
    const hawk = parseHawk(header);
    for (const name of signable) out.push({ name, strategy: strategyOf(deps, name), id: hawk.id, hawk });
    return out;
  }
  throw refusal(auth, deps, 'Authorization must be a Bearer token or a Hawk header');
}

/**
 * Authenticates a request. Written so that the common case — a cached session, an in-process
 * nonce cache — completes without a single promise; any step may still answer with one (a
 * database read, Redis), and then the rest continues asynchronously.
 */
function authenticate(request: FastifyRequest, auth: RouteAuth, deps: AuthDeps): void | Promise<void> {
  const header = request.headers.authorization;
  if (!header) {
    if (auth.optional) return;
    throw refusal(auth, deps, 'Missing Authorization header');
  }
  if (auth.optional && auth.clientBasic && /^Basic\s/i.test(header)) return;
  const list = candidates(header, auth, deps);
  if (!list.length) throw refusal(auth, deps, 'This route does not accept that kind of token');
  const now = deps.clock.now();

  const accept = (c: Candidate, credentials: unknown): void => {
    const problem = c.strategy.check?.(credentials, auth);
    if (problem) throw problem;
    request.auth = { strategy: c.name, credentials };
  };
  const spend = (c: Candidate, credentials: unknown): void => {
    accept(c, credentials);
    // Single-use tokens are spent once the request has passed validation (see spendAfterValidation).
    const consume = c.strategy.consume;
    if (consume) request.authSpend = () => consume(credentials);
  };
  // A token's first valid Hawk request pins it to Hawk (one write per token, then never again).
  const hawkSpend = (c: Candidate, credentials: unknown): void | Promise<void> => {
    if (!c.strategy.pinToHawk || c.strategy.hawkOnly?.(credentials)) return spend(c, credentials);
    return c.strategy.pinToHawk(credentials).then(() => spend(c, credentials));
  };
  const proceed = (i: number, credentials: unknown): void | Promise<void> => {
    const c = list[i]!;
    if (!credentials) return attempt(i + 1);
    if (!c.hawk) {
      if (c.strategy.hawkOnly?.(credentials)) throw appError('INVALID_TOKEN', { detail: 'This token has been used with Hawk: sign its requests with Hawk' });
      return spend(c, credentials);
    }
    const verified = verifyHawk(c.hawk, c.strategy.authKey!(credentials, c.id), {
      method: request.method,
      url: request.url,
      contentType: request.headers['content-type'],
      rawBody: request.rawBody,
    }, deps.hawk, deps.nonces, now);
    return verified instanceof Promise ? verified.then(() => hawkSpend(c, credentials)) : hawkSpend(c, credentials);
  };
  const attempt = (i: number): void | Promise<void> => {
    const c = list[i];
    if (!c) throw refusal(auth, deps, 'Unknown or expired token');
    if (c.hawk && !/^[0-9a-f]{64}$/.test(c.id)) throw appError('INVALID_TOKEN', { detail: 'Unknown token' });
    const found = c.strategy.find(c.id, now);
    return found instanceof Promise ? found.then((credentials) => proceed(i, credentials)) : proceed(i, found);
  };
  return attempt(0);
}

/** preHandler of routes that take a single-use token: validation has passed, so the token is spent now. */
function spendAfterValidation(request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  const spend = request.authSpend;
  if (!spend) return done();
  request.authSpend = null;
  spend().then((ok) => done(ok ? undefined : appError('INVALID_TOKEN', { detail: 'Token already used' })), done);
}

export function installAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('authSpend', null);
  app.addHook('onRoute', (route) => {
    // Every API route states its authentication; forgetting to is a startup error, not an open route.
    if (route.url.startsWith('/v1/') && !route.schema?.hide && route.config?.auth === undefined) {
      throw new Error(`route ${route.method} ${route.url} does not declare config.auth`);
    }
    const auth = normaliseAuth(route.config?.auth);
    if (!auth) {
      if (route.config?.auth === 'none') route.schema = { ...route.schema, security: [], 'x-auth': { strategies: [] } } as typeof route.schema;
      return;
    }
    for (const name of auth.strategies) {
      if (!deps.strategies[name as StrategyName]) throw new Error(`route ${route.method} ${route.url} uses unknown auth strategy ${name}`);
    }
    checkScope(`route ${route.method} ${route.url}`, auth, deps.strategies);
    route.schema = { ...route.schema, security: securityRequirements(auth, deps.strategies), 'x-auth': authExtension(`route ${route.method} ${route.url}`, auth, deps.strategies) } as typeof route.schema;
    // What the strategies refuse with is part of the route's declared errors (OpenAPI, SDK).
    const refusals = auth.strategies.map((name) => (deps.strategies[name] as AnyStrategy).refusal).filter((r): r is AuthErrorName => r !== undefined);
    const response = route.schema?.response as Record<number, TSchema> | undefined;
    if (refusals.length && response) route.schema = { ...route.schema, response: withDeclaredErrors(response, refusals) };
    if (auth.strategies.some((name) => (deps.strategies[name] as AnyStrategy).consume)) {
      const existing = hookList(route.preHandler);
      route.preHandler = [spendAfterValidation, ...existing] as typeof route.preHandler;
    }
    // A signed request's credential is in its body: the body's schema answers first (as the
    // route's own validation always did), then the strategy proves what it carries.
    if (isSigned(auth, deps)) {
      const check = signedPreHandler(signedOf(auth, deps), Boolean(auth.optional), (d) => refusal(auth, deps, d), () => deps.clock.now());
      route.preHandler = [check, ...hookList(route.preHandler)] as typeof route.preHandler;
    }
  });
  // Callback style: most requests authenticate synchronously and need no promise at all.
  app.addHook('preValidation', (request, _reply, done) => {
    const auth = normaliseAuth(request.routeOptions.config.auth);
    if (!auth || isSigned(auth, deps)) return done();
    let result: void | Promise<void>;
    try {
      result = authenticate(request, auth, deps);
    } catch (err) {
      return done(err as Error);
    }
    if (result instanceof Promise) result.then(() => done(), (err: Error) => done(err));
    else done();
  });
}

/**
 * The operation's `x-auth` (OpenAPI extension): the strategies it takes, whether they are optional,
 * and the least confirmed session it accepts, with the reason when that is an unconfirmed one. The
 * portal's route table and the session-state walking test read it from openapi.json.
 */
function authExtension(where: string, auth: RouteAuth, strategies: StrategyMap) {
  const states = auth.strategies.map((name) => (strategies[name] as AnyStrategy).session).filter((s): s is SessionState => s !== undefined);
  const session = states.length ? SESSION_STATES.find((s) => states.includes(s)) : undefined;
  if (session === 'unconfirmed' && !auth.unconfirmed?.trim()) {
    throw new Error(`${where} accepts an unconfirmed session (strategy ${auth.strategies.join(', ')}): state why in config.auth.unconfirmed, or require sessionTokenVerified`);
  }
  if (session !== 'unconfirmed' && auth.unconfirmed !== undefined) {
    throw new Error(`${where} declares auth.unconfirmed, but none of its strategies accepts an unconfirmed session`);
  }
  return {
    strategies: auth.strategies,
    ...(auth.scope !== undefined ? { scope: auth.scope } : {}),
    ...(auth.optional ? { optional: true } : {}),
    ...(session ? { session } : {}),
    ...(session === 'unconfirmed' ? { unconfirmed: auth.unconfirmed!.trim() } : {}),
  };
}

/**
 * A scope is declared exactly when a scoped strategy is named, and is one that strategy knows: an
 * MFA route without its scope would accept a step-up token made for any other action.
 */
function checkScope(where: string, auth: RouteAuth, strategies: StrategyMap): void {
  const scoped = auth.strategies.filter((name) => (strategies[name] as AnyStrategy).scopes);
  if (!scoped.length) {
    if (auth.scope !== undefined) throw new Error(`${where} declares auth.scope ${auth.scope}, but none of its strategies (${auth.strategies.join(', ')}) has scopes`);
    return;
  }
  if (auth.scope === undefined) throw new Error(`${where} uses the scoped strategy ${scoped[0]} without declaring auth.scope`);
  for (const name of scoped) {
    const known = (strategies[name] as AnyStrategy).scopes!;
    if (!known.includes(auth.scope)) throw new Error(`${where} declares auth.scope ${auth.scope}, which strategy ${name} does not know (${known.join(', ')})`);
  }
}

/**
 * The credentials of the strategy that authenticated the request, typed by the strategies named:
 * a route passes the ones its `config.auth` declares. Throws if the request was authenticated
 * another way (a handler asking for what its route does not declare fails its tests).
 */
export function credentialsOf<N extends StrategyName>(request: FastifyRequest, ...strategies: [N, ...N[]]): StrategyCredentials[N] {
  const auth = request.auth;
  if (!auth || !(strategies as string[]).includes(auth.strategy)) {
    throw appError('INVALID_TOKEN', { detail: 'Missing credentials' });
  }
  return auth.credentials as StrategyCredentials[N];
}

/** The route's strategies proven by an inbound webhook's own signed credential (see signed-auth.ts). */
function signedOf(auth: RouteAuth, deps: AuthDeps): [StrategyName, TokenStrategy<unknown>][] {
  return auth.strategies.filter((name) => strategyOf(deps, name).kind === 'signed').map((name) => [name, strategyOf(deps, name)]);
}
/** Checked on every request: no array is made for it. */
const isSigned = (auth: RouteAuth, deps: AuthDeps) => auth.strategies.some((name) => strategyOf(deps, name).kind === 'signed');

export { jwtSchemeName, securitySchemes } from './auth-openapi.js';
