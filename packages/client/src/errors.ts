import { authErrorName, OAUTH_ERRORS, oauthErrorName, type AuthErrorName, type ErrorBody, type OAuthErrorName } from '@tessera/errors';

/** A name of either catalogue: the auth server's, or the OAuth server's (on its own routes). */
export type ErrorName = AuthErrorName | OAuthErrorName;
import { checkPassword, type PasswordCheck, type PasswordProblem } from '@tessera/protocol';

/**
 * An error the server answered with, typed by its catalogue name.
 *
 * @example
 * try { await client.accountLogin({ email, authPW }) }
 * catch (e) { if (isTesseraError(e, 'INCORRECT_PASSWORD')) showWrongPassword() }
 */
export class TesseraApiError extends Error {
  /** The catalogue name, e.g. `ACCOUNT_UNKNOWN` (undefined for an errno this SDK does not know). */
  readonly errorName: ErrorName | undefined;
  /** The catalogue the error comes from: `oauth` on the OAuth server's routes (/token, /introspect, …). */
  readonly catalogue: 'auth' | 'oauth';
  readonly errno: number;
  /** The HTTP status. */
  readonly code: number;
  /** The whole error body, with its per-errno extra fields (email, retryAfter, validation, …). */
  readonly body: ErrorBody;

  constructor(body: ErrorBody, catalogue?: 'oauth') {
    super(body.message);
    this.name = 'TesseraApiError';
    this.body = body;
    this.errno = body.errno;
    this.code = body.code;
    // An OAuth-server route answers from the OAuth catalogue, except the shared shapes (429, 413, 503…).
    const oauth = catalogue === 'oauth' ? oauthErrorName(body.errno) : undefined;
    if (oauth && OAUTH_ERRORS[oauth].status === body.code) {
      this.catalogue = 'oauth';
      this.errorName = oauth;
    } else {
      this.catalogue = 'auth';
      this.errorName = authErrorName(body.errno, body.code);
    }
  }
}

/**
 * Whether `value` is an error the server answered with; with `name`, that error, and `errorName` is
 * then typed as it. Narrow the names to what one operation declares with `ErrorOf`:
 * `isTesseraError<ErrorOf<'accountLogin'>>(err, 'INCORRECT_PASSWORD')`.
 */
export function isTesseraError(value: unknown): value is TesseraApiError;
export function isTesseraError<N extends ErrorName>(value: unknown, name: N): value is TesseraApiError & { readonly errorName: N };
export function isTesseraError(value: unknown, name?: ErrorName): value is TesseraApiError;
export function isTesseraError(value: unknown, name?: ErrorName): value is TesseraApiError {
  return value instanceof TesseraApiError && (name === undefined || value.errorName === name);
}

/**
 * The request found no Tessera server: nothing answered at the URL (`unreachable`: refused, unknown
 * host, reset), or what answered does not speak Tessera's JSON (`not-tessera`: an HTML page, a
 * body without a catalogue errno). The body of such an answer is never put in the message.
 *
 * @example
 * catch (e) { if (e instanceof TesseraConnectionError && e.reason === 'unreachable') showOffline(e.url) }
 */
export class TesseraConnectionError extends Error {
  /** The URL requested. */
  readonly url: string;
  readonly reason: 'unreachable' | 'not-tessera';
  /** The HTTP status of a `not-tessera` answer. */
  readonly status: number | undefined;

  constructor(reason: 'unreachable' | 'not-tessera', url: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TesseraConnectionError';
    this.reason = reason;
    this.url = url;
    this.status = options.status;
  }
}

/**
 * A new password the password policy refuses (see `checkPassword`); thrown before anything is sent.
 * `message` is the sentence to show.
 */
export class PasswordPolicyError extends Error {
  readonly problem: PasswordProblem;

  constructor(refused: PasswordCheck) {
    super(refused.reason);
    this.name = 'PasswordPolicyError';
    this.problem = refused.problem;
  }
}

/** Throws PasswordPolicyError when the policy refuses `password` for the account `email`. */
export function assertPasswordAllowed(password: string, email: string): void {
  const refused = checkPassword(password, { email });
  if (refused) throw new PasswordPolicyError(refused);
}
