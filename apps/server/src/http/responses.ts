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
/**
 * Errors every authenticated route can send. With Hawk also 503/201 and 429/114: a nonce the
 * server cannot remember for its whole window, a token over its nonce quota (http/hawk.ts).
 */
const AUTH_FAILURES: AuthErrorName[] = ['INVALID_TOKEN', 'INVALID_REQUEST_SIGNATURE', 'INVALID_TIMESTAMP', 'INVALID_NONCE', 'SERVER_BUSY', 'THROTTLED'];

export function responses(ok: TSchema, errors: AuthErrorName[], options: { input?: boolean; auth?: boolean } = {}) {
  const all = [...(options.input === false ? [] : INPUT_ERRORS), ...(options.auth ? AUTH_FAILURES : []), ...errors, 'UNEXPECTED_ERROR' as const];
  return errorResponses({ 200: ok }, all);
}

/**
 * A route's response map with more catalogue errors declared: for what the platform adds to
 * routes (rate limiting declares 429/114 on every API route it checks).
 */
export function withDeclaredErrors(response: Record<number, TSchema>, errors: AuthErrorName[]): Record<number, TSchema> {
  const declared = Object.entries(response)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, schema]) => ((schema as { 'x-errors'?: { name: AuthErrorName }[] })['x-errors'] ?? []).map((e) => e.name));
  const ok = Object.fromEntries(Object.entries(response).filter(([status]) => Number(status) < 400));
  return errorResponses(ok, [...declared, ...errors]);
}

function errorResponses(ok: Record<number, TSchema>, all: AuthErrorName[]): Record<number, TSchema> {
  const byStatus = new Map<number, AuthErrorName[]>();
  for (const name of new Set(all)) {
    const def = AUTH_ERRORS[name];
    for (const status of [def.status, ...((def as { otherStatuses?: readonly number[] }).otherStatuses ?? [])]) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
    }
  }
  const out: Record<number, TSchema> = { ...ok };
  for (const [status, names] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = Type.Unsafe({
      $ref: 'ErrorBody#',
      description: names.map((n) => `errno ${AUTH_ERRORS[n].errno} ${n}`).join(', '),
      'x-errors': names.map((n) => ({ name: n, errno: AUTH_ERRORS[n].errno })),
    });
  }
  return out;
}
