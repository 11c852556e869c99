import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Executor } from '../../storage/executor.js';
import type { OauthClientsTable } from '../../storage/schema.js';

// OAuth clients and access tokens: the part stub accounts need today. The OAuth server issue adds
// codes, refresh tokens and the grant pipelines on these tables.

export interface OAuthClient {
  id: string;
  name: string;
  imageUri: string;
  redirectUri: string;
  hashedSecret: string | null;
  trusted: boolean;
  publicClient: boolean;
  canGrant: boolean;
  allowedScopes: string[];
  createdAt: number;
}

export interface AccessToken {
  tokenHash: string;
  clientId: string;
  uid: string;
  scope: string[];
  createdAt: number;
  expiresAt: number;
}

/** protocol.md §8.1: access tokens are stored only as SHA-256(token). */
export function hashToken(token: string): string {
  return createHash('sha256').update(Buffer.from(token, 'hex')).digest('hex');
}

export async function insertClient(db: Executor, c: OAuthClient): Promise<void> {
  await db.insertInto('oauth_clients').values({
    id: c.id, name: c.name, image_uri: c.imageUri, redirect_uri: c.redirectUri, hashed_secret: c.hashedSecret,
    hashed_secret_previous: null, trusted: c.trusted ? 1 : 0, public_client: c.publicClient ? 1 : 0,
    can_grant: c.canGrant ? 1 : 0, allowed_scopes: c.allowedScopes.join(' '), created_at: c.createdAt,
  }).execute();
}

function rowToClient(r: Selectable<OauthClientsTable>): OAuthClient {
  return {
    id: r.id, name: r.name, imageUri: r.image_uri, redirectUri: r.redirect_uri, hashedSecret: r.hashed_secret,
    trusted: r.trusted === 1, publicClient: r.public_client === 1, canGrant: r.can_grant === 1,
    allowedScopes: r.allowed_scopes.split(' ').filter(Boolean), createdAt: r.created_at,
  };
}

export async function findClient(db: Executor, id: string): Promise<OAuthClient | null> {
  const r = await db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? rowToClient(r) : null;
}

export async function listClients(db: Executor): Promise<OAuthClient[]> {
  const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('created_at').execute();
  return rows.map(rowToClient);
}

export async function insertAccessToken(db: Executor, t: AccessToken & { profileChangedAt: number }): Promise<void> {
  await db.insertInto('oauth_access_tokens').values({
    token_hash: t.tokenHash, client_id: t.clientId, uid: t.uid, scope: t.scope.join(' '),
    created_at: t.createdAt, expires_at: t.expiresAt, profile_changed_at: t.profileChangedAt,
  }).execute();
}

export async function findAccessToken(db: Executor, token: string): Promise<AccessToken | null> {
  const r = await db.selectFrom('oauth_access_tokens').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
  if (!r) return null;
  return { tokenHash: r.token_hash, clientId: r.client_id, uid: r.uid, scope: r.scope.split(' ').filter(Boolean), createdAt: r.created_at, expiresAt: r.expires_at };
}

export async function deleteAccessTokensOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('oauth_access_tokens').where('uid', '=', uid).execute();
}
