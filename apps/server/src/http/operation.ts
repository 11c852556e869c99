import type { Static, TSchema, TUnknown } from '@sinclair/typebox';
import type { AuthErrorName } from '@tessera/errors';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import type { RequestContext } from '../platform/request-context.js';
import type { RouteAuthConfig } from './auth.js';
import { contextOf } from './context.js';
import { oauthResponses, responses } from './responses.js';

// One operation, several doors. An operation is declared once: what it takes, what it answers,
// the catalogue errors it may throw, the rate-limit actions it counts as, and a handler that sees
// domain values only. Its doors are the REST routes that reach it: each has its path, its way in
// (auth), its error catalogue and its operationId, and registers one Fastify route, so the
// OpenAPI document and the SDK generated from it list one operation per door.
//
//   const setHint = operation({
//     tags: ['Recovery key'], summary: 'Set the recovery key\'s hint',
//     input: { body: body({ hint }) },
//     output: Type.Object({}),
//     errors: ['RECOVERY_KEY_NOT_FOUND'],
//     rateLimit: { actions: ['recoveryKeyHint'] },
//     handle: async ({ caller, body, request }) => {
//       await recoveryKeys.setHint(caller, body.hint, request);
//       return {};
//     },
//     doors: [
//       { method: 'POST', path: '/recoveryKey/hint', operationId: 'recoveryKeyHint', auth: 'sessionTokenVerified',
//         caller: (req) => credentialsOf(req, 'sessionTokenVerified').uid, errors: ['SESSION_UNVERIFIED'] },
//       { method: 'POST', path: '/recoveryKey/hint', prefix: '/mfa', operationId: 'mfaRecoveryKeyHint',
//         auth: mfaAuth('recovery_key'), caller: (req) => credentialsOf(req, 'mfa').uid,
//         summary: 'Set the recovery key\'s hint, with an MFA token', errors: ['INVALID_MFA_TOKEN'] },
//     ],
//   });
//   registerOperations(app, [setHint]);
//
// A door of the OAuth server's catalogue (`catalogue: 'oauth'`) declares its errors as their OAuth
// twins (oauthResponses) and is answered from that catalogue (http/errors.ts). A door may shape
// the wire its own way (`wire`): another body schema (`/token` also takes `assertion`), turned
// into the operation's input, and another reply schema the domain value is shaped into (snake_case,
// seconds, v1/v2 names), so the service returns domain values.
//
// Every door shares the operation's rate-limit actions, so a second door never doubles a budget.

/** What the handler gets: the validated input, who the door says is calling, and the request context. */
export interface OperationContext<B, Q, P, C> {
  body: B;
  query: Q;
  params: P;
  /** What the door read from its credentials (a uid, a session, client credentials…). */
  caller: C;
  request: RequestContext;
}

/** The raw input a door received, before `wire.input` turns it into the operation's. */
export interface DoorInput {
  body: unknown;
  query: unknown;
  params: unknown;
}

/** How one door's wire differs from the operation's declaration. */
export interface DoorWire<B, Q, P, V> {
  /** This door's body schema, in place of the operation's. */
  body?: TSchema;
  query?: TSchema;
  /** The operation's input from what this door received (after validation against this door's schemas). */
  input?: (received: DoorInput) => Partial<{ body: B; query: Q; params: P }>;
  /** This door's reply schema, in place of the operation's output. */
  output?: TSchema;
  /** The wire body of the handler's value at this door (a method, so that a door without wire fits any operation). */
  reply?(value: V): unknown;
}

/** A door; one without `wire` (B, Q, P, V left `never`) fits any operation whose caller is C. */
export interface Door<C, B = never, Q = never, P = never, V = never> {
  method: HTTPMethods;
  /** The path after the prefix; the operationId is not derived from it. */
  path: string;
  /** Put before `path` (e.g. '/mfa'). */
  prefix?: string;
  auth: RouteAuthConfig;
  /** The domain value this door's credentials name, given to the handler as `caller`. */
  caller: (request: FastifyRequest) => C;
  /** The error catalogue this door answers from (default `auth`). */
  catalogue?: 'auth' | 'oauth';
  operationId: string;
  /** In place of the operation's summary (or made from it), or of its description. */
  summary?: string | ((operation: string) => string);
  description?: string;
  /** Catalogue errors this door adds (those of its way in), after the operation's unless the operation places them. */
  errors?: AuthErrorName[];
  /** OAuth catalogue: an `assertion` may name the person (config `assertion`, oauthResponses `assertion`). */
  assertion?: true;
  /** OAuth catalogue: the body has a `grant_type` enum (oauthResponses `grantType`). */
  grantType?: true;
  /** Response headers this door always sends. */
  headers?: Record<string, string>;
  wire?: DoorWire<B, Q, P, V>;
}

export interface Operation<B extends TSchema = TUnknown, Q extends TSchema = TUnknown, P extends TSchema = TUnknown, O extends TSchema = TSchema, C = unknown, V = Static<O>> {
  tags: string[];
  summary: string;
  description?: string;
  input: { body?: B; query?: Q; params?: P };
  /** The success reply (200) of every door without `wire.output`. */
  output: O;
  /**
   * The catalogue errors the operation may throw, in declaration order; a function places the
   * door's own errors (`(door) => ['A', ...door, 'B']`), else they follow.
   */
  errors: AuthErrorName[] | ((door: AuthErrorName[]) => AuthErrorName[]);
  /** The input errors (400/107 …) are declared when there is a body, query or params unless this says otherwise. */
  inputErrors?: boolean;
  rateLimit?: NonNullable<FastifyContextConfig['rateLimit']>;
  handle: (context: OperationContext<Static<B>, Static<Q>, Static<P>, C>) => V | Promise<V>;
  doors: Door<C, Static<B>, Static<Q>, Static<P>, V>[];
}

/** Declares an operation; the identity, there for type inference of the handler from the schemas. */
export function operation<B extends TSchema = TUnknown, Q extends TSchema = TUnknown, P extends TSchema = TUnknown, O extends TSchema = TSchema, C = unknown, V = Static<O>>(
  op: Operation<B, Q, P, O, C, V>,
): Operation<B, Q, P, O, C, V> {
  return op;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyOperation = Operation<any, any, any, any, any, any>;
// Fastify instances of any type provider: doors are typed by the operation, not by the provider.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFastify = FastifyInstance<any, any, any, any, any>;

/** The Fastify route options of one door of `op`. */
export function doorRoute(op: AnyOperation, door: AnyOperation['doors'][number]) {
  const body = door.wire?.body ?? op.input.body;
  const query = door.wire?.query ?? op.input.query;
  const params = op.input.params;
  const doorErrors = door.errors ?? [];
  const errors = typeof op.errors === 'function' ? op.errors(doorErrors) : [...op.errors, ...doorErrors];
  const input = op.inputErrors ?? (body !== undefined || query !== undefined || params !== undefined);
  const auth = door.auth !== 'none';
  const ok = door.wire?.output ?? op.output;
  const oauth = door.catalogue === 'oauth';
  const schema: FastifySchema & Record<string, unknown> = {
    tags: op.tags,
    summary: typeof door.summary === 'function' ? door.summary(op.summary) : door.summary ?? op.summary,
    operationId: door.operationId,
    ...(door.description ?? op.description ? { description: door.description ?? op.description } : {}),
    ...(body ? { body } : {}),
    ...(query ? { querystring: query } : {}),
    ...(params ? { params } : {}),
    response: oauth
      ? oauthResponses(ok, errors, { input, auth, ...(door.grantType ? { grantType: true } : {}), ...(door.assertion ? { assertion: true } : {}) })
      : responses(ok, errors, { input, auth }),
  };
  const config: FastifyContextConfig = {
    auth: door.auth,
    ...(oauth ? { catalogue: 'oauth' as const } : {}),
    ...(door.assertion ? { assertion: true as const } : {}),
    ...(op.rateLimit ? { rateLimit: op.rateLimit } : {}),
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const received: DoorInput = { body: request.body, query: request.query, params: request.params };
    // The request context is read only by the handlers that ask for it (parsing Accept-Language costs).
    let context: RequestContext | undefined;
    const value = await op.handle({
      ...received, ...door.wire?.input?.(received), caller: door.caller(request),
      get request() {
        return (context ??= contextOf(request));
      },
    });
    for (const [name, text] of Object.entries(door.headers ?? {})) reply.header(name, text);
    return door.wire?.reply ? door.wire.reply(value) : value;
  };
  return { method: door.method, url: `${door.prefix ?? ''}${door.path}`, config, schema, handler };
}

/**
 * Registers every door of the operations, door by door: first door of each operation, then
 * the second… so the document lists a group of twin routes as two runs of paths, as they read.
 */
export function registerOperations(app: AnyFastify, ops: AnyOperation[]): void {
  const most = Math.max(0, ...ops.map((op) => op.doors.length));
  for (let i = 0; i < most; i++) {
    for (const op of ops) {
      const door = op.doors[i];
      if (door) app.route(doorRoute(op, door));
    }
  }
}

/** Registers the doors of one operation. */
export function registerOperation(app: AnyFastify, op: AnyOperation): void {
  registerOperations(app, [op]);
}
