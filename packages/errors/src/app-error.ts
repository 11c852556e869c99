import { AUTH_ERRORS, type AuthErrorName } from './auth.js';
import { reasonPhrase, type ExtraFieldTypes, type ErrorDefinition } from './catalogue.js';
import { OAUTH_ERRORS, oauthTwin, type OAuthErrorName, type OAuthTwinContext } from './oauth.js';

type ExtrasList<N extends AuthErrorName> = (typeof AUTH_ERRORS)[N] extends { extras: readonly (infer E)[] } ? E : never;

/** The extra fields error `N` may carry, typed. */
export type ExtrasOf<N extends AuthErrorName> = [ExtrasList<N>] extends [never]
  ? Record<string, never>
  : Partial<Pick<ExtraFieldTypes, Extract<ExtrasList<N>, keyof ExtraFieldTypes>>>;

/** The JSON body of every error the auth server answers with. */
export interface ErrorBody {
  code: number;
  errno: number;
  error: string;
  message: string;
  info: string;
  [extra: string]: unknown;
}

/**
 * An error from the catalogue, thrown by name: `throw appError('ACCOUNT_UNKNOWN', { email })`.
 * The HTTP layer turns it into the body above; nothing else about the failure leaves the server.
 */
export class AppError<N extends AuthErrorName = AuthErrorName> extends Error {
  readonly errorName: N;
  readonly errno: number;
  readonly status: number;
  readonly error: string;
  readonly extras: ExtrasOf<N>;
  /** Response headers this error sets (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(name: N, extras: ExtrasOf<N>, message?: string, status?: number) {
    const def: ErrorDefinition = AUTH_ERRORS[name];
    // Catalogue errors are answers, not faults: skip capturing a stack trace (it is the costly part
    // of making an Error, and a flood of 503s makes many).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? def.message);
    Error.stackTraceLimit = limit;
    if (status !== undefined && status !== def.status && !def.otherStatuses?.includes(status)) {
      throw new TypeError(`${name} is not sent with status ${status}`);
    }
    this.name = 'AppError';
    this.errorName = name;
    this.errno = def.errno;
    this.status = status ?? def.status;
    this.error = def.error ?? reasonPhrase(this.status);
    this.extras = extras;
    this.headers = {};
    const retryAfter = (extras as { retryAfter?: number }).retryAfter;
    // protocol.md: retryAfter is in seconds, in the body and in the Retry-After header alike.
    if (typeof retryAfter === 'number') this.headers['retry-after'] = String(Math.max(0, Math.ceil(retryAfter)));
  }

  toBody(info: string): ErrorBody {
    const body: ErrorBody = { code: this.status, errno: this.errno, error: this.error, message: this.message, info };
    for (const [key, value] of Object.entries(this.extras)) if (value !== undefined) body[key] = value;
    return body;
  }
}

/** Builds a catalogue error by name. Optional `message` refines the catalogue text (never hides it). */
export function appError<N extends AuthErrorName>(name: N, ...args: [ExtrasOf<N>?, string?, number?]): AppError<N> {
  return new AppError(name, (args[0] ?? {}) as ExtrasOf<N>, args[1], args[2]);
}

export function isAppError(value: unknown, name?: AuthErrorName): value is AppError {
  return value instanceof AppError && (name === undefined || value.errorName === name);
}

/** Finds the catalogue name of an error body (errno 999 is told apart by status). */
export function authErrorName(errno: number, status: number): AuthErrorName | undefined {
  let generic: AuthErrorName | undefined;
  for (const [name, def] of Object.entries(AUTH_ERRORS) as [AuthErrorName, ErrorDefinition][]) {
    if (def.errno !== errno) continue;
    if (def.status === status || def.otherStatuses?.includes(status)) return name;
    generic ??= name;
  }
  return generic;
}

/**
 * An error of the OAuth server's catalogue (oauth.ts). Its body has the same shape as an auth
 * error's; the route it comes from tells the catalogue, and `info` links to the OAuth section.
 */
export class OAuthError<N extends OAuthErrorName = OAuthErrorName> extends Error {
  readonly catalogue = 'oauth' as const;
  readonly errorName: N;
  readonly errno: number;
  readonly status: number;
  readonly error: string;
  readonly extras: Record<string, unknown>;
  readonly headers: Record<string, string> = {};

  constructor(name: N, extras: Record<string, unknown> = {}, message?: string) {
    const def: ErrorDefinition = OAUTH_ERRORS[name];
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? def.message);
    Error.stackTraceLimit = limit;
    this.name = 'OAuthError';
    this.errorName = name;
    this.errno = def.errno;
    this.status = def.status;
    this.error = def.error ?? reasonPhrase(def.status);
    // Only the extras this error documents leave the server.
    this.extras = Object.fromEntries(Object.entries(extras).filter(([k]) => def.extras?.includes(k as never)));
  }

  toBody(info: string): ErrorBody {
    const body: ErrorBody = { code: this.status, errno: this.errno, error: this.error, message: this.message, info };
    for (const [key, value] of Object.entries(this.extras)) if (value !== undefined) body[key] = value;
    return body;
  }
}

export function oauthError<N extends OAuthErrorName>(name: N, extras?: Record<string, unknown>, message?: string): OAuthError<N> {
  return new OAuthError(name, extras, message);
}

export function isOAuthError(value: unknown, name?: OAuthErrorName): value is OAuthError {
  return value instanceof OAuthError && (name === undefined || value.errorName === name);
}

/**
 * The answer an OAuth-server route gives for an auth-catalogue error: its OAuth twin, keeping the
 * extras the twin documents and a refined message (a validation sentence) when there is one; the
 * error itself when it has no twin (429, 413, 503 keep the shared shape).
 */
export function toOAuthError(err: AppError, context: Omit<OAuthTwinContext, 'validationKeys'> = {}): AppError | OAuthError {
  // A malformed request answered with a status other than 400 (405, 431, …) keeps its status and the shared shape.
  if (err.errorName === 'MALFORMED_REQUEST' && err.status !== 400) return err;
  const validation = (err.extras as { validation?: { keys?: string[] } }).validation;
  const twin = oauthTwin(err.errorName, { ...context, validationKeys: validation?.keys });
  if (!twin) return err;
  const refined = err.message !== AUTH_ERRORS[err.errorName].message && twin !== 'INTERNAL_ERROR' ? err.message : undefined;
  return new OAuthError(twin, err.extras as Record<string, unknown>, refined);
}

/** Finds the OAuth-catalogue name of an error body from an OAuth-server route. */
export function oauthErrorName(errno: number): OAuthErrorName | undefined {
  return (Object.entries(OAUTH_ERRORS) as [OAuthErrorName, ErrorDefinition][]).find(([, def]) => def.errno === errno)?.[0];
}
