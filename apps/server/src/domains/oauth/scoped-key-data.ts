import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import { credentialsOf } from '../../http/auth.js';
import { operation, registerOperation } from '../../http/operation.js';
import type { Database } from '../../storage/schema.js';
import type { AccountRecords } from '../account-core/index.js';
import type { SessionWithAccount } from '../sessions/index.js';
import { Assertion, withoutAssertion } from './assertion.js';
import type { ClientRegistry } from './clients/registry.js';
import { parseScope } from './scopes.js';

// Scoped-key metadata (protocol.md §8.2): for each requested key-bearing scope the client is
// allowed, what a signed-in client needs to derive the key from kB. The key itself never reaches
// the server: the client derives it and encrypts it to the relying party (keys_jwe).

/** keyRotationSecret is 32 zero bytes today (protocol.md §8.2). */
const KEY_ROTATION_SECRET = '0'.repeat(64);

export interface KeyDataDeps {
  db: Kysely<Database>;
  clients: ClientRegistry;
  records: AccountRecords;
  /** Scopes that carry a scoped key (OAUTH_KEY_BEARING_SCOPES). */
  keyBearingScopes: readonly string[];
}

export async function scopedKeyData(deps: KeyDataDeps, session: SessionWithAccount, clientId: string, scopeText: string) {
  const client = await deps.clients.findClient(deps.db, clientId);
  if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId });
  const scopes = parseScope(scopeText);
  const invalid = scopes.filter((s) => !client.allowedScopes.includes(s) && s !== 'openid');
  if (invalid.length) throw appError('INVALID_SCOPES', { invalidScopes: invalid });
  const account = await deps.records.find(deps.db, session.uid);
  if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
  const keyRotationTimestamp = Math.max(account.keysChangedAt || account.verifierSetAt, 0);
  // A session that signed in before the keys last changed holds an old kB: sign in again.
  if (Math.floor(session.authAt / 1000) < Math.floor(keyRotationTimestamp / 1000)) throw appError('STALE_AUTH_AT', { authAt: Math.floor(session.authAt / 1000) });
  const out: Record<string, { identifier: string; keyRotationSecret: string; keyRotationTimestamp: number }> = {};
  for (const s of scopes) {
    if (deps.keyBearingScopes.includes(s)) out[s] = { identifier: s, keyRotationSecret: KEY_ROTATION_SECRET, keyRotationTimestamp };
  }
  return out;
}

const KeyData = Type.Record(Type.String(), Type.Object({
  identifier: Type.String({ description: 'What the key derivation names the scope with.' }),
  keyRotationSecret: Type.String({ pattern: '^[0-9a-f]{64}$', description: '32 zero bytes today.' }),
  keyRotationTimestamp: Type.Integer({ description: 'Milliseconds: when the account\'s keys last changed.' }),
}));

const KeyDataBody = Type.Object({
  client_id: Type.String({ pattern: '^[0-9a-fA-F]{16}$' }),
  scope: Type.String({ minLength: 1, maxLength: 256, pattern: '^[a-zA-Z0-9 _/.:#-]*$' }),
}, { additionalProperties: false });

/** The OAuth-server door's body also takes `assertion` (protocol.md §8.2), never honoured (assertion.ts). */
const KeyDataServerBody = Type.Object({ ...KeyDataBody.properties, assertion: Assertion }, { additionalProperties: false });

export const keyDataRoutes: FastifyPluginAsyncTypebox<{ deps: KeyDataDeps }> = async (app, { deps }) => {
  registerOperation(app, operation({
    tags: ['OAuth tokens'], summary: 'Scoped-key metadata',
    description: 'For each requested scope that carries a scoped key (OAUTH_KEY_BEARING_SCOPES) and that the client is allowed: `identifier`, `keyRotationSecret` and `keyRotationTimestamp`, from which the signed-in client derives the key from kB (protocol.md §8.2; `deriveScopedKey` in @tessera/protocol) and encrypts the bundle to the relying party\'s `keys_jwk` as `keys_jwe`. Scopes without keys are left out. 400/163 for scopes the client is not allowed; 401/164 when the session signed in before the account\'s keys last changed. Needs a confirmed session. /key-data answers the OAuth server\'s errnos instead: 101 unknown client, 114 scopes, 119 stale sign-in, 112 unconfirmed session; it also accepts `assertion` (50–10240 characters) and never honours it: Tessera issues no identity assertions and authorizes the call with the session token (Hawk), so an assertion sent instead of a session token answers 401/104, beside one 400/109.',
    input: { body: KeyDataBody },
    output: KeyData,
    errors: ['UNKNOWN_CLIENT_ID', 'INVALID_SCOPES', 'STALE_AUTH_AT', 'SESSION_UNVERIFIED'],
    rateLimit: { actions: ['oauthAuthorization'] },
    handle: ({ body, caller }) => scopedKeyData(deps, caller, body.client_id, body.scope),
    doors: [
      { method: 'POST', path: '/account/scoped-key-data', operationId: 'accountScopedKeyData', auth: 'sessionTokenVerified', caller: (req) => credentialsOf(req, 'sessionTokenVerified') },
      {
        method: 'POST', path: '/key-data', operationId: 'keyData', auth: 'sessionTokenVerified', catalogue: 'oauth', summary: 'Scoped-key metadata (OAuth server path)',
        caller: (req) => credentialsOf(req, 'sessionTokenVerified'), wire: { body: KeyDataServerBody, input: ({ body }) => ({ body: withoutAssertion(body as Static<typeof KeyDataServerBody>) }) },
      },
    ],
  }));
};
