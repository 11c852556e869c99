import { Type, type TSchema } from '@sinclair/typebox';
import { AUTH_ERRORS, OAUTH_ERRORS, oauthTwin, type AuthErrorName, type OAuthErrorName } from '@tessera/errors';

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
  return errorResponses({ 200: ok }, all.map(auth));
}

/**
 * The responses of an OAuth-server route (config `catalogue: 'oauth'`): the same auth-catalogue
 * names as `responses`, each declared as the OAuth twin it is answered with (http/errors.ts);
 * names without a twin (429, 413) keep the shared auth shape. `session`: the route authenticates
 * with a session token, so an invalid token is an invalid assertion (401/104). `grantType`: the
 * body has a `grant_type` enum, whose violations answer 400/121. `assertion`: a route without a
 * session whose person would be named by an `assertion` (config `assertion`), so its INVALID_TOKEN
 * is an invalid assertion too.
 */
export function oauthResponses(ok: TSchema, errors: AuthErrorName[], options: { input?: boolean; auth?: boolean; grantType?: boolean; assertion?: boolean } = {}) {
  const all = [...(options.input === false ? [] : INPUT_ERRORS), ...(options.auth ? AUTH_FAILURES : []), ...errors, 'UNEXPECTED_ERROR' as const];
  const declared = all.map((name): Declared => {
    const twin = oauthTwin(name, { session: options.auth || options.assertion });
    return twin ? { catalogue: 'oauth', name: twin } : auth(name);
  });
  if (options.grantType) declared.push({ catalogue: 'oauth', name: 'INVALID_GRANT_TYPE' });
  // A malformed request with a status other than 400 (405, 431, …) keeps the shared shape (toOAuthError).
  if (all.includes('MALFORMED_REQUEST')) declared.push({ catalogue: 'auth', name: 'MALFORMED_REQUEST', exceptStatus: 400 });
  return errorResponses({ 200: ok }, declared);
}

/** One declared error; `exceptStatus` leaves out one of its statuses (one its twin answers instead). */
type Declared = ({ catalogue: 'auth'; name: AuthErrorName } | { catalogue: 'oauth'; name: OAuthErrorName }) & { exceptStatus?: number };
const auth = (name: AuthErrorName): Declared => ({ catalogue: 'auth', name });
const definition = (d: Declared) => (d.catalogue === 'auth' ? AUTH_ERRORS[d.name] : OAUTH_ERRORS[d.name]);

/**
 * A route's response map with more catalogue errors declared: for what the platform adds to
 * routes (rate limiting declares 429/114 on every API route it checks).
 */
export function withDeclaredErrors(response: Record<number, TSchema>, errors: AuthErrorName[]): Record<number, TSchema> {
  // What is declared already keeps its statuses as they are; the new errors are added with theirs.
  const declared = Object.entries(response)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([status, schema]) => ((schema as { 'x-errors'?: { name: string; catalogue?: 'oauth' }[] })['x-errors'] ?? [])
      .map((e): [number, Declared] => [Number(status), { catalogue: e.catalogue ?? 'auth', name: e.name } as Declared]));
  const ok = Object.fromEntries(Object.entries(response).filter(([status]) => Number(status) < 400));
  return render(ok, [...declared, ...byStatuses(errors.map(auth))]);
}

function errorResponses(ok: Record<number, TSchema>, all: Declared[]): Record<number, TSchema> {
  return render(ok, byStatuses(all));
}

/** Each declared error at each status it is sent with. */
function byStatuses(all: Declared[]): [number, Declared][] {
  const out: [number, Declared][] = [];
  for (const d of all) {
    const def = definition(d);
    for (const status of [def.status, ...((def as { otherStatuses?: readonly number[] }).otherStatuses ?? [])]) {
      if (status !== d.exceptStatus) out.push([status, d]);
    }
  }
  return out;
}

function render(ok: Record<number, TSchema>, pairs: [number, Declared][]): Record<number, TSchema> {
  const byStatus = new Map<number, Declared[]>();
  const seen = new Set<string>();
  for (const [status, d] of pairs) {
    const key = `${status}:${d.catalogue}:${d.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    byStatus.set(status, [...(byStatus.get(status) ?? []), d]);
  }
  const out: Record<number, TSchema> = { ...ok };
  for (const [status, names] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[status] = Type.Unsafe({
      $ref: 'ErrorBody#',
      description: names.map((d) => `${d.catalogue === 'oauth' ? 'OAuth errno' : 'errno'} ${definition(d).errno} ${d.name}`).join(', '),
      'x-errors': names.map((d) => (d.catalogue === 'oauth' ? { name: d.name, errno: definition(d).errno, catalogue: 'oauth' } : { name: d.name, errno: definition(d).errno })),
    });
  }
  return out;
}
