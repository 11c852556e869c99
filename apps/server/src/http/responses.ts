import { Type, type TSchema } from '@sinclair/typebox';
import { AUTH_ERRORS, type AuthErrorName } from '@tessera/errors';

// Route response declarations: the success shape plus every catalogue error the route can send,
// grouped by status. The OpenAPI document (and so the portal) lists them per operation.

export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'The HTTP status, repeated.' }),
    errno: Type.Integer({ description: 'The stable error number clients switch on.' }),
    error: Type.String({ description: 'The HTTP reason phrase.' }),
    message: Type.String(),
    info: Type.String({ description: 'Link to this errno on the error reference page.' }),
  },
  { $id: 'ErrorBody', additionalProperties: true, description: 'A catalogue error; per-errno extra fields may follow.' },
);

/** Errors every route with a body or query can send. */
const INPUT_ERRORS: AuthErrorName[] = ['INVALID_PARAMETER', 'MISSING_PARAMETER', 'INVALID_JSON', 'REQUEST_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'MALFORMED_REQUEST'];
/** Errors every authenticated route can send. */
const AUTH_FAILURES: AuthErrorName[] = ['INVALID_TOKEN', 'INVALID_REQUEST_SIGNATURE', 'INVALID_TIMESTAMP', 'INVALID_NONCE'];

export function responses(ok: TSchema, errors: AuthErrorName[], options: { input?: boolean; auth?: boolean } = {}) {
  const all = [...(options.input === false ? [] : INPUT_ERRORS), ...(options.auth ? AUTH_FAILURES : []), ...errors, 'UNEXPECTED_ERROR' as const];
  const byStatus = new Map<number, AuthErrorName[]>();
  for (const name of new Set(all)) {
    const def = AUTH_ERRORS[name];
    for (const status of [def.status, ...((def as { otherStatuses?: readonly number[] }).otherStatuses ?? [])]) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
    }
  }
  const out: Record<number, TSchema> = { 200: ok };
  for (const [status, names] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = Type.Unsafe({
      $ref: 'ErrorBody#',
      description: names.map((n) => `errno ${AUTH_ERRORS[n].errno} ${n}`).join(', '),
      'x-errors': names.map((n) => ({ name: n, errno: AUTH_ERRORS[n].errno })),
    });
  }
  return out;
}
