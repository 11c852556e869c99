import { hash } from 'node:crypto';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Executor } from '../../storage/executor.js';
import { groupedInsert } from '../../storage/grouped-insert.js';
import { preparedQuery } from '../../storage/prepared.js';
import type { Database, OauthAccessTokensTable, OauthClientsTable } from '../../storage/schema.js';

// OAuth clients and access tokens: the part stub accounts need today. The OAuth server issue adds
// codes, refresh tokens and the grant pipelines on these tables.

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

export interface AccessToken {
  tokenHash: string;
  clientId: string;
  uid: string;
  scope: string[];
  createdAt: number;
  expiresAt: number;
  /** The `sub` the client is shown: the uid, or its pairwise id for the account. */
  subject: string;
  /** Set when the token presented was a JWT access token: its jti. */
  jti?: string;
  /** The authorization grant it was minted from (null for tokens older than grant ids). */
  grantId?: string | null;
  /** How the sign-in behind it was authenticated (`pwd email`, `pwd otp`); null when unknown (older rows, stub accounts' tokens). */
  amr?: string[] | null;
  /** That sign-in's assurance level; null with `amr`. */
  aal?: number | null;
}

/** An opaque token, code or client secret: 32 bytes as hex. */
export const HEX64 = /^[0-9a-fA-F]{64}$/;
/** A client id: 8 bytes as hex. Anything else names no client, and is never looked up. */
const CLIENT_ID = /^[0-9a-fA-F]{16}$/;
export const isClientId = (id: string): boolean => CLIENT_ID.test(id);

/** protocol.md §8.1: access tokens are stored only as SHA-256(token). */
export function hashToken(token: string): string {
  return hash('sha256', Buffer.from(token, 'hex'), 'hex');
}

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

// Every token request, introspection and revocation looks the client up, and every introspection
// and bearer-token request an access token: compiled once (storage/prepared.ts), run with the key.
const clientById = preparedQuery<Selectable<OauthClientsTable>, [string]>((db) => db.selectFrom('oauth_clients').selectAll().where('id', '=', ''));
const accessTokenByHash = preparedQuery<Selectable<OauthAccessTokensTable>, [string]>((db) => db.selectFrom('oauth_access_tokens').selectAll().where('token_hash', '=', ''));

export async function findClient(db: Executor, id: string): Promise<OAuthClient | null> {
  if (!isClientId(id)) return null;
  const [r] = await clientById(db as Kysely<Database>, id.toLowerCase());
  return r ? rowToClient(r) : null;
}

export async function listClients(db: Executor): Promise<OAuthClient[]> {
  const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(rowToClient);
}

/** The subject is stored only when it is not the uid (a pairwise client's). */
export async function insertAccessToken(db: Executor, t: Omit<AccessToken, 'subject'> & { subject?: string; profileChangedAt: number }): Promise<void> {
  const row = {
    token_hash: t.tokenHash, client_id: t.clientId, uid: t.uid, scope: t.scope.join(' '),
    created_at: t.createdAt, expires_at: t.expiresAt, profile_changed_at: t.profileChangedAt,
    subject: t.subject !== undefined && t.subject !== t.uid ? t.subject : null, grant_id: t.grantId ?? null,
    amr: t.amr ? t.amr.join(' ') : null, aal: t.amr ? (t.aal ?? null) : null,
  };
  // Outside a transaction (a refresh writes only this row), concurrent requests share one INSERT.
  if (!db.isTransaction) return groupedAccessTokenInsert(db as Kysely<Database>, row);
  await db.insertInto('oauth_access_tokens').values(row).execute();
}

const groupedAccessTokenInsert = groupedInsert<'oauth_access_tokens', Insertable<OauthAccessTokensTable>>('oauth_access_tokens',
  ['token_hash', 'client_id', 'uid', 'scope', 'created_at', 'expires_at', 'profile_changed_at', 'subject', 'grant_id', 'amr', 'aal']);

/** A stored access token by its hash (a JWT access token's row is keyed by `jwtAccessTokenHash` of its jti). */
export async function findAccessTokenByHash(db: Executor, tokenHash: string): Promise<AccessToken | null> {
  const [r] = await accessTokenByHash(db as Kysely<Database>, tokenHash);
  return r ? rowToAccessToken(r) : null;
}

function rowToAccessToken(r: Omit<Selectable<OauthAccessTokensTable>, 'profile_changed_at'>): AccessToken {
  return {
    tokenHash: r.token_hash, clientId: r.client_id, uid: r.uid, scope: r.scope.split(' ').filter(Boolean), createdAt: Number(r.created_at), expiresAt: Number(r.expires_at),
    subject: r.subject ?? r.uid, grantId: r.grant_id,
    // Loose: a row read at a schema before 0021 (the migration tests) has no such columns at all.
    amr: typeof r.amr === 'string' ? r.amr.split(' ').filter(Boolean) : null, aal: typeof r.amr === 'string' && r.aal !== null ? Number(r.aal) : null,
  };
}

// Introspection of an opaque token needs the calling client and the token: one statement instead
// of two (each statement on an SQLite file also opens and closes a WAL read transaction).
type ClientWithAccessTokenRow = Selectable<OauthClientsTable> & {
  at_token_hash: string | null; at_client_id: string | null; at_uid: string | null; at_scope: string | null;
  at_created_at: number | null; at_expires_at: number | null; at_subject: string | null; at_grant_id: string | null;
  at_amr: string | null; at_aal: number | null;
};
const clientWithAccessToken = preparedQuery<ClientWithAccessTokenRow, [string, string]>((db) => db.selectFrom('oauth_clients as c')
  .leftJoin('oauth_access_tokens as t', (join) => join.on('t.token_hash', '=', ''))
  .selectAll('c')
  .select([
    't.token_hash as at_token_hash', 't.client_id as at_client_id', 't.uid as at_uid', 't.scope as at_scope',
    't.created_at as at_created_at', 't.expires_at as at_expires_at', 't.subject as at_subject', 't.grant_id as at_grant_id',
    't.amr as at_amr', 't.aal as at_aal',
  ])
  .where('c.id', '=', ''));

/**
 * The client `clientId` (null when unknown) and, in the same read, the access token stored under
 * `tokenHash` whoever it belongs to (null when none). The caller authenticates the client first.
 */
export async function findClientWithAccessToken(db: Executor, clientId: string, tokenHash: string): Promise<{ client: OAuthClient | null; token: AccessToken | null }> {
  if (!isClientId(clientId)) return { client: null, token: null };
  const [r] = await clientWithAccessToken(db as Kysely<Database>, tokenHash, clientId.toLowerCase());
  if (!r) return { client: null, token: null };
  const token = r.at_token_hash === null ? null : rowToAccessToken({
    token_hash: r.at_token_hash, client_id: r.at_client_id!, uid: r.at_uid!, scope: r.at_scope!, created_at: r.at_created_at!,
    expires_at: r.at_expires_at!, subject: r.at_subject, grant_id: r.at_grant_id, amr: r.at_amr, aal: r.at_aal,
  });
  return { client: rowToClient(r), token };
}

/**
 * The row key of a JWT access token: SHA-256 of `at+jwt:` and its jti. No 64-hex opaque token hashes
 * to it (those hash 32 bytes; this hashes 71), so a jti is never accepted as an opaque token.
 */
export function jwtAccessTokenHash(jti: string): string {
  return hash('sha256', `at+jwt:${jti}`, 'hex');
}

export async function deleteAccessTokensOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('oauth_access_tokens').where('uid', '=', uid).execute();
}
