import type { Kysely, Selectable } from 'kysely';
import type { Executor } from '../../../storage/executor.js';
import { preparedQuery } from '../../../storage/prepared.js';
import type { Database } from '../../../storage/schema.js';
import type { OauthClientsTable } from '../tables.js';

// The clients registry's table. Deleting a client takes every token issued to it along.

export interface OAuthClient {
  /** 8 bytes, 16 hex. */
  id: string;
  name: string;
  imageUri: string;
  /** The first registered redirect URI (what GET /client/{id} shows). */
  redirectUri: string;
  /** Every registered redirect URI; a request's redirect_uri must equal one of them. */
  redirectUris: string[];
  hashedSecret: string | null;
  /** During rotation, the previous secret's hash still authenticates the client. */
  hashedSecretPrevious: string | null;
  trusted: boolean;
  publicClient: boolean;
  canGrant: boolean;
  allowedScopes: string[];
  /** RFC 8252 §7.3: loopback redirect URIs match on any port. */
  localRedirects: boolean;
  accessTokenTtlSeconds: number;
  /** 0: refresh tokens live until revoked. */
  refreshTokenTtlSeconds: number;
  rotateRefreshTokens: boolean;
  /** id_tokens, userinfo, introspection and /verify show the client a pairwise `sub`, never the uid. */
  pairwiseSubjects: boolean;
  /** Seconds after which a pairwise subject changes; 0: never. */
  pairwiseRotationSeconds: number;
  /** Access tokens are RS256 JWTs (RFC 9068) rather than opaque hex. */
  jwtAccessTokens: boolean;
  /** RFC 8707: the resource URIs the client may name at /token (exact match); empty: none. */
  allowedResources: string[];
  createdAt: number;
}

/** A client id: 8 bytes as hex. Anything else names no client, and is never looked up. */
const CLIENT_ID = /^[0-9a-fA-F]{16}$/;
export const isClientId = (id: string): boolean => CLIENT_ID.test(id);

function clientRow(c: OAuthClient) {
  return {
    name: c.name, image_uri: c.imageUri, redirect_uri: c.redirectUris[0] ?? c.redirectUri, redirect_uris: c.redirectUris.join(' '),
    hashed_secret: c.hashedSecret, hashed_secret_previous: c.hashedSecretPrevious, trusted: c.trusted ? 1 : 0,
    public_client: c.publicClient ? 1 : 0, can_grant: c.canGrant ? 1 : 0, allowed_scopes: c.allowedScopes.join(' '),
    local_redirects: c.localRedirects ? 1 : 0, access_token_ttl: c.accessTokenTtlSeconds,
    refresh_token_ttl: c.refreshTokenTtlSeconds, rotate_refresh_tokens: c.rotateRefreshTokens ? 1 : 0,
    pairwise_subjects: c.pairwiseSubjects ? 1 : 0, pairwise_rotation: c.pairwiseRotationSeconds, jwt_access_tokens: c.jwtAccessTokens ? 1 : 0,
    allowed_resources: c.allowedResources.length ? c.allowedResources.join(' ') : null,
  };
}

export async function insertClient(db: Executor, c: OAuthClient): Promise<void> {
  await db.insertInto('oauth_clients').values({ id: c.id, created_at: c.createdAt, ...clientRow(c) }).execute();
}

/** Rewrites every field of a registered client but its id and creation time. */
export async function updateClient(db: Executor, c: OAuthClient): Promise<void> {
  await db.updateTable('oauth_clients').set(clientRow(c)).where('id', '=', c.id).execute();
}

export async function updateClientSecrets(db: Executor, id: string, hashedSecret: string | null, hashedSecretPrevious: string | null): Promise<boolean> {
  const r = await db.updateTable('oauth_clients').set({ hashed_secret: hashedSecret, hashed_secret_previous: hashedSecretPrevious })
    .where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Removes the client and every token issued to it. */
export async function deleteClient(db: Executor, id: string): Promise<boolean> {
  await db.deleteFrom('oauth_access_tokens').where('client_id', '=', id).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('client_id', '=', id).execute();
  await db.deleteFrom('oauth_retired_refresh_tokens').where('client_id', '=', id).execute();
  await db.deleteFrom('oauth_codes').where('client_id', '=', id).execute();
  const r = await db.deleteFrom('oauth_clients').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export function rowToClient(r: Selectable<OauthClientsTable>): OAuthClient {
  const redirectUris = (r.redirect_uris ?? r.redirect_uri).split(' ').filter(Boolean);
  return {
    id: r.id, name: r.name, imageUri: r.image_uri, redirectUri: redirectUris[0] ?? r.redirect_uri, redirectUris,
    hashedSecret: r.hashed_secret, hashedSecretPrevious: r.hashed_secret_previous,
    trusted: Number(r.trusted) === 1, publicClient: Number(r.public_client) === 1, canGrant: Number(r.can_grant) === 1,
    allowedScopes: r.allowed_scopes.split(' ').filter(Boolean), localRedirects: Number(r.local_redirects) === 1,
    accessTokenTtlSeconds: Number(r.access_token_ttl), refreshTokenTtlSeconds: Number(r.refresh_token_ttl),
    rotateRefreshTokens: Number(r.rotate_refresh_tokens) === 1, pairwiseSubjects: Number(r.pairwise_subjects) === 1,
    pairwiseRotationSeconds: Number(r.pairwise_rotation), jwtAccessTokens: Number(r.jwt_access_tokens) === 1,
    allowedResources: (r.allowed_resources ?? '').split(' ').filter(Boolean), createdAt: Number(r.created_at),
  };
}

// Every token request, introspection and revocation looks the client up: compiled once
// (storage/prepared.ts), run with the id.
const clientById = preparedQuery<Selectable<OauthClientsTable>, [string]>((db) => db.selectFrom('oauth_clients').selectAll().where('id', '=', ''));

export async function findClient(db: Executor, id: string): Promise<OAuthClient | null> {
  if (!isClientId(id)) return null;
  const [r] = await clientById(db as Kysely<Database>, id.toLowerCase());
  return r ? rowToClient(r) : null;
}

export async function listClients(db: Executor): Promise<OAuthClient[]> {
  const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(rowToClient);
}
