import { authErrorName, type AuthErrorName, type ErrorBody } from '@tessera/errors';

/**
 * An error the server answered with, typed by its catalogue name.
 *
 * @example
 * try { await client.accountLogin({ email, authPW }) }
 * catch (e) { if (isTesseraError(e, 'INCORRECT_PASSWORD')) showWrongPassword() }
 */
export class TesseraApiError extends Error {
  /** The catalogue name, e.g. `ACCOUNT_UNKNOWN` (undefined for an errno this SDK does not know). */
  readonly errorName: AuthErrorName | undefined;
  readonly errno: number;
  /** The HTTP status. */
  readonly code: number;
  /** The whole error body, with its per-errno extra fields (email, retryAfter, validation, …). */
  readonly body: ErrorBody;

  constructor(body: ErrorBody) {
    super(body.message);
    this.name = 'TesseraApiError';
    this.body = body;
    this.errno = body.errno;
    this.code = body.code;
    this.errorName = authErrorName(body.errno, body.code);
  }
}

/**
 * Whether `value` is an error the server answered with; with `name`, that error, and `errorName` is
 * then typed as it. Narrow the names to what one operation declares with `ErrorOf`:
 * `isTesseraError<ErrorOf<'accountLogin'>>(err, 'INCORRECT_PASSWORD')`.
 */
export function isTesseraError(value: unknown): value is TesseraApiError;
export function isTesseraError<N extends AuthErrorName>(value: unknown, name: N): value is TesseraApiError & { readonly errorName: N };
export function isTesseraError(value: unknown, name?: AuthErrorName): value is TesseraApiError;
export function isTesseraError(value: unknown, name?: AuthErrorName): value is TesseraApiError {
  return value instanceof TesseraApiError && (name === undefined || value.errorName === name);
}
