import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { securitySchemes, type StrategyMap } from './auth.js';

export const API_VERSION = '1.0.0';

/** The document's sections, in the order it lists them (paths are grouped by their first tag). */
const TAGS = [
  { name: 'Account', description: 'Creating, signing in to and deleting accounts; keys.' },
  { name: 'Session', description: 'Session tokens: status, confirmation, sign-out.' },
  { name: 'Devices', description: 'Devices registered on sessions, Web Push, and everything signed in to the account.' },
  { name: 'Email', description: 'Confirming addresses and sessions by email.' },
  { name: 'Password', description: 'Changing, forgetting and resetting passwords.' },
  { name: 'MFA', description: 'Step-up: an emailed code exchanged for a short-lived MFA token that /mfa routes require.' },
  { name: 'Keys', description: 'The server\'s public signing keys.' },
  { name: 'Two-step authentication', description: 'An authenticator app (TOTP), and sessions confirmed by it (AAL2).' },
  { name: 'Backup codes', description: 'Single-use codes that stand in for the authenticator app, at sign-in and during a password reset.' },
  { name: 'Recovery phone', description: 'A phone that receives SMS codes: a second factor for sign-in and password reset.' },
  { name: 'Recovery key', description: 'The account recovery key that keeps kB through a password reset.' },
  { name: 'Linked accounts', description: 'Sign-in with a Google or Apple account, linking and unlinking.' },
  { name: 'OAuth', description: 'The OAuth 2.0 / OpenID Connect server: clients, authorization, tokens, signing keys and discovery.' },
  { name: 'OAuth tokens', description: 'Using OAuth tokens: introspection, verification, revocation, userinfo and profile, scoped-key data, authorized clients.' },
  { name: 'Locations', description: 'Where requests come from (a MaxMind-format database) and which features are offered there.' },
  { name: 'Support', description: 'Support tickets, forwarded to the helpdesk by a signed webhook.' },
  { name: 'Newsletters', description: 'The account\'s newsletter choices, forwarded to the mailing-list service by a signed webhook.' },
  { name: 'Miscellaneous', description: 'Utilities.' },
];

/** Paths in the order of their tags, then of registration: the document does not follow composition order. */
function byTag(paths: Record<string, Record<string, { tags?: string[] }>>) {
  const rank = (item: Record<string, { tags?: string[] }>) => {
    const tag = Object.values(item).find((op) => op.tags?.length)?.tags?.[0];
    const i = TAGS.findIndex((t) => t.name === tag);
    return i < 0 ? TAGS.length : i;
  };
  return Object.fromEntries(Object.entries(paths).map((e, i) => ({ e, i })).sort((a, b) => rank(a.e[1]) - rank(b.e[1]) || a.i - b.i).map(({ e }) => e));
}

/**
 * `POST /v1/account/create` → `accountCreate`: the name of the SDK method and of the portal's anchor.
 * Two methods on one path (GET and POST /account/status) must name one of them in the schema.
 */
export function operationIdOf(url: string): string {
  const words = url.replace(/^\/v1\//, '/').split(/[^a-zA-Z0-9]+/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}

/** The OpenAPI 3.1 description, generated from the route schemas as routes register. */
export async function installOpenApi(app: FastifyInstance, strategies: StrategyMap = {}): Promise<void> {
  // Each operation gets an operationId and `x-errors`: every catalogue error its responses declare.
  const seen = new Map<string, string>();
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide || Array.isArray(route.method) || route.method === 'HEAD') return;
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId ?? operationIdOf(route.url);
    const other = seen.get(operationId);
    if (other) throw new Error(`operationId ${operationId} of ${route.method} ${route.url} is taken by ${other}: name one of them in its schema`);
    seen.set(operationId, `${route.method} ${route.url}`);
    const errors: { status: number; name: string; errno: number }[] = [];
    for (const [status, schema] of Object.entries((route.schema?.response ?? {}) as Record<string, { 'x-errors'?: { name: string; errno: number }[] }>)) {
      for (const e of schema['x-errors'] ?? []) errors.push({ status: Number(status), ...e });
    }
    route.schema = {
      ...route.schema,
      operationId,
      ...(errors.length ? { 'x-errors': errors } : {}),
    } as typeof route.schema;
  });
  await app.register(swagger, {
    transformObject: (doc) => {
      const api = (doc as { openapiObject: { paths?: Record<string, Record<string, { tags?: string[] }>> } }).openapiObject;
      return { ...api, ...(api.paths ? { paths: byTag(api.paths) } : {}) } as never;
    },
    // Shared schemas keep their $id as their name under components.schemas.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tessera account API',
        version: API_VERSION,
        description: [
          'The account service of Tessera: onepw accounts, sessions, key fetching and email confirmation.',
          '',
          'Every route is under `/v1`. Binary values travel as lowercase hex. Every error is a JSON body',
          '`{code, errno, error, message, info}` plus per-errno fields; on 503 errno 201 wait `retryAfter`',
          'seconds (also in the Retry-After header) before retrying. A path asked with a method it does not have',
          'answers 405 errno 999 with an `Allow` header listing its methods; an unknown path answers 404 errno 999.',
          'Token-authenticated routes accept the',
          'token\'s id as a prefixed Bearer credential (`fxs_`, `fxk_`, `fxar_`, `fxpf_`, `fxpc_`) or a Hawk',
          'signature made with its authKey over the server\'s public host and port. Once a token has been used',
          'with Hawk, Bearer is refused for it (401/110): its id may have been seen in transit.',
          'Routes under `/mfa` take a short-lived MFA token instead (`Authorization: Bearer <JWT>` from',
          '`/mfa/otp/verify`); the scope each needs is listed in its security requirement.',
        ].join('\n'),
        license: { name: 'MPL-2.0', identifier: 'MPL-2.0' },
      },
      servers: [{ url: '{origin}', variables: { origin: { default: 'http://localhost:9000', description: 'The server\'s PUBLIC_URL.' } } }],
      components: { securitySchemes: securitySchemes(strategies) as never },
      tags: TAGS,
    },
  });
}
