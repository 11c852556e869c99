import type { Kysely, Selectable } from 'kysely';
import { locksRows, type Executor } from '../../../storage/executor.js';
import { preparedQuery } from '../../../storage/prepared.js';
import type { Database } from '../../../storage/schema.js';
import type { OauthClientsTable, OauthCodesTable, OauthRefreshTokensTable } from '../tables.js';
import { isClientId, rowToClient, type OAuthClient } from '../clients/store.js';
import type { Grant } from './grant.js';

// Authorization codes and refresh tokens (migration 0017). Both are stored only as SHA-256 of their
// bytes (protocol.md §8.1); the refresh token's hash doubles as its public handle.

/** A code's grant (its grant id is drawn when it is traded), with what the token request must repeat. */
export interface AuthorizationCode extends Omit<Grant, 'grantId'> {
  codeHash: string;
  offline: boolean;
  codeChallenge: string | null;
  redirectUri: string | null;
  nonce: string | null;
  keysJwe: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  issuedAccessHash: string | null;
  issuedRefreshHash: string | null;
  /** The authorization request's ppid_seed, or null. */
  ppidSeed: number | null;
}

/** A refresh token: its grant (`grantId` null for tokens older than grant ids), carried by every access token minted from it. */
export interface RefreshToken extends Grant {
  tokenHash: string;
  createdAt: number;
  lastUsedAt: number;
  /** 0: until revoked. */
  expiresAt: number;
}

const words = (s: string) => s.split(' ').filter(Boolean);

function rowToCode(r: Selectable<OauthCodesTable>): AuthorizationCode {
  return {
    codeHash: r.code_hash, clientId: r.client_id, uid: r.uid, scope: words(r.scope), authAt: Number(r.auth_at), amr: words(r.amr),
    aal: Number(r.aal), offline: Number(r.offline) === 1, codeChallenge: r.code_challenge, redirectUri: r.redirect_uri, nonce: r.nonce,
    keysJwe: r.keys_jwe, createdAt: Number(r.created_at), expiresAt: Number(r.expires_at), usedAt: r.used_at === null ? null : Number(r.used_at),
    issuedAccessHash: r.issued_access_hash, issuedRefreshHash: r.issued_refresh_hash, ppidSeed: r.ppid_seed === null ? null : Number(r.ppid_seed),
  };
}

function rowToRefresh(r: Selectable<OauthRefreshTokensTable>): RefreshToken {
  return {
    tokenHash: r.token_hash, clientId: r.client_id, uid: r.uid, scope: words(r.scope), authAt: Number(r.auth_at), amr: words(r.amr),
    aal: Number(r.aal), createdAt: Number(r.created_at), lastUsedAt: Number(r.last_used_at), expiresAt: Number(r.expires_at),
    grantId: r.grant_id,
  };
}

export async function insertCode(db: Executor, c: Omit<AuthorizationCode, 'usedAt' | 'issuedAccessHash' | 'issuedRefreshHash' | 'ppidSeed'> & { ppidSeed?: number | null }): Promise<void> {
  await db.insertInto('oauth_codes').values({
    code_hash: c.codeHash, client_id: c.clientId, uid: c.uid, scope: c.scope.join(' '), auth_at: c.authAt, amr: c.amr.join(' '), aal: c.aal,
    offline: c.offline ? 1 : 0, code_challenge: c.codeChallenge, redirect_uri: c.redirectUri, nonce: c.nonce, keys_jwe: c.keysJwe,
    created_at: c.createdAt, expires_at: c.expiresAt, used_at: null, issued_access_hash: null, issued_refresh_hash: null, ppid_seed: c.ppidSeed ?? null,
  }).execute();
}

export async function findCode(db: Executor, codeHash: string): Promise<AuthorizationCode | null> {
  const r = await db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  return r ? rowToCode(r) : null;
}

/**
 * Marks the code used, once: only the request whose update changes the row wins (a concurrent
 * second use changes nothing and is treated as a replay). keys_jwe is dropped: it is returned once.
 */
export async function claimCode(db: Executor, codeHash: string, now: number): Promise<boolean> {
  const r = await db.updateTable('oauth_codes').set({ used_at: now, keys_jwe: null })
    .where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function recordIssued(db: Executor, codeHash: string, accessHash: string, refreshHash: string | null): Promise<void> {
  await db.updateTable('oauth_codes').set({ issued_access_hash: accessHash, issued_refresh_hash: refreshHash }).where('code_hash', '=', codeHash).execute();
}

export async function deleteExpiredCodes(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expires_at', '<', now).execute();
}

export async function insertRefreshToken(db: Executor, t: RefreshToken): Promise<void> {
  await db.insertInto('oauth_refresh_tokens').values({
    token_hash: t.tokenHash, client_id: t.clientId, uid: t.uid, scope: t.scope.join(' '), auth_at: t.authAt, amr: t.amr.join(' '),
    aal: t.aal, created_at: t.createdAt, last_used_at: t.lastUsedAt, expires_at: t.expiresAt, grant_id: t.grantId,
  }).execute();
}

/** Behind every refresh grant: compiled once (storage/prepared.ts), run with the hash. */
const refreshTokenByHash = preparedQuery<Selectable<OauthRefreshTokensTable>, [string]>((db) => db.selectFrom('oauth_refresh_tokens').selectAll().where('token_hash', '=', ''));

export async function findRefreshToken(db: Executor, tokenHash: string): Promise<RefreshToken | null> {
  const [r] = await refreshTokenByHash(db as Kysely<Database>, tokenHash);
  return r ? rowToRefresh(r) : null;
}

// A refresh grant needs the calling client and the refresh token: one statement instead of two
// (as introspection reads the client with the access token, tokens/store.ts).
type ClientWithRefreshTokenRow = Selectable<OauthClientsTable> & { [K in keyof Selectable<OauthRefreshTokensTable> as `rt_${K}`]: Selectable<OauthRefreshTokensTable>[K] | null };
const clientWithRefreshToken = preparedQuery<ClientWithRefreshTokenRow, [string, string]>((db) => db.selectFrom('oauth_clients as c')
  .leftJoin('oauth_refresh_tokens as t', (join) => join.on('t.token_hash', '=', ''))
  .selectAll('c')
  .select([
    't.token_hash as rt_token_hash', 't.client_id as rt_client_id', 't.uid as rt_uid', 't.scope as rt_scope', 't.auth_at as rt_auth_at', 't.amr as rt_amr',
    't.aal as rt_aal', 't.created_at as rt_created_at', 't.last_used_at as rt_last_used_at', 't.expires_at as rt_expires_at', 't.grant_id as rt_grant_id',
  ])
  .where('c.id', '=', ''));

/**
 * The client `clientId` (null when unknown) and, in the same read, the refresh token stored under
 * `tokenHash` whoever it belongs to (null when none). The caller authenticates the client first.
 */
export async function findClientWithRefreshToken(db: Executor, clientId: string, tokenHash: string): Promise<{ client: OAuthClient | null; token: RefreshToken | null }> {
  if (!isClientId(clientId)) return { client: null, token: null };
  const [r] = await clientWithRefreshToken(db as Kysely<Database>, tokenHash, clientId.toLowerCase());
  if (!r) return { client: null, token: null };
  const token = r.rt_token_hash === null ? null : rowToRefresh({
    token_hash: r.rt_token_hash, client_id: r.rt_client_id!, uid: r.rt_uid!, scope: r.rt_scope!, auth_at: r.rt_auth_at!, amr: r.rt_amr!,
    aal: r.rt_aal!, created_at: r.rt_created_at!, last_used_at: r.rt_last_used_at!, expires_at: r.rt_expires_at!, grant_id: r.rt_grant_id,
  });
  return { client: rowToClient(r), token };
}

/** Records a refresh token's use; false when it is gone (revoked while the refresh ran). */
export async function touchRefreshToken(db: Executor, tokenHash: string, now: number): Promise<boolean> {
  const r = await db.updateTable('oauth_refresh_tokens').set({ last_used_at: now }).where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Whether a refresh token still exists, read after the access token it backs was written. On
 * PostgreSQL and MySQL the read locks the row, so it waits for a revocation in progress to commit
 * and then finds the token gone: a revocation either sees the new access token (and deletes it
 * with the grant) or this read sees the revocation (and the caller deletes it).
 */
export async function refreshTokenStillLive(db: Executor, tokenHash: string): Promise<boolean> {
  // SQLite has no row locks: a revocation holds the one connection until it commits, and a read
  // waits for it (storage/direct-reads.ts), so the plain prepared read behaves the same.
  if (!locksRows(db)) return (await refreshTokenExists(db as Kysely<Database>, tokenHash)).length > 0;
  return (await db.selectFrom('oauth_refresh_tokens').select('token_hash').where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst()) !== undefined;
}

const refreshTokenExists = preparedQuery<{ token_hash: string }, [string]>((db) => db.selectFrom('oauth_refresh_tokens').select('token_hash').where('token_hash', '=', ''));

/** Deletes one refresh token; true when it existed (a rotation's loser finds it gone). */
export async function deleteRefreshToken(db: Executor, tokenHash: string): Promise<boolean> {
  const r = await db.deleteFrom('oauth_refresh_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/**
 * RFC 7009 §2.1: deletes one refresh token and, with it, every access token of its grant (opaque
 * and JWT rows alike); true when it existed. `uid` and `clientId` narrow which token may go. Run it
 * in a transaction: the two deletes are one revocation.
 */
export async function revokeRefreshTokenGrant(db: Executor, tokenHash: string, only: { uid?: string; clientId?: string } = {}): Promise<boolean> {
  let find = db.selectFrom('oauth_refresh_tokens').select(['grant_id', 'uid']).where('token_hash', '=', tokenHash);
  if (only.uid) find = find.where('uid', '=', only.uid);
  if (only.clientId) find = find.where('client_id', '=', only.clientId);
  const row = await find.executeTakeFirst();
  // Only the delete that removes the row revokes: a rotation or exchange that replaced the token
  // first wins, and the token is then as unknown as any other (its successor is not this token).
  if (!row || !(await deleteRefreshToken(db, tokenHash))) return false;
  if (row.grant_id !== null) {
    await db.deleteFrom('oauth_access_tokens').where('grant_id', '=', row.grant_id).execute();
    await deleteRetiredOfGrant(db, row.uid, row.grant_id);
  }
  return true;
}

/**
 * Everything a grant issued: the account's refresh tokens with its id (a rotated or exchanged
 * successor included; found through the uid index) and its access tokens. For a replayed code.
 */
export async function deleteGrant(db: Executor, uid: string, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid).where('grant_id', '=', grantId).execute();
  await db.deleteFrom('oauth_access_tokens').where('grant_id', '=', grantId).execute();
  await deleteRetiredOfGrant(db, uid, grantId);
}

/**
 * Retired refresh tokens (migration 0020, RFC 9700 §4.14.2 reuse detection) are kept this long
 * after their rotation or exchange, then pruned: a fixed bound, not the client's refresh-token
 * lifetime, because most clients register none (tokens live until revoked) and a client's lifetime
 * can change after the fact. A copy presented later is refused as unknown, without revoking.
 */
export const RETIRED_REFRESH_KEEP_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Remembers a refresh token that a rotation or a token exchange replaced (its hash only). Tokens
 * older than grant ids (no grant to revoke) are not remembered. Run it in the transaction that
 * replaces the token.
 */
export async function retireRefreshToken(db: Executor, t: Pick<RefreshToken, 'tokenHash' | 'grantId' | 'uid' | 'clientId'>, now: number): Promise<void> {
  if (t.grantId === null) return;
  await db.insertInto('oauth_retired_refresh_tokens').values({
    token_hash: t.tokenHash, grant_id: t.grantId, uid: t.uid, client_id: t.clientId, retired_at: now,
  }).execute();
}

/**
 * A retired refresh token presented again: someone holds a copy (RFC 9700 §4.14.2). Ends its grant
 * (the account's refresh tokens and access tokens of the grant id, and the grant's retired rows);
 * the grant id and account when the token was a retired one, else null. Run it in a transaction:
 * the deletes are one revocation.
 */
export async function revokeReusedGrant(db: Executor, tokenHash: string): Promise<{ uid: string; grantId: string; clientId: string } | null> {
  const r = await db.selectFrom('oauth_retired_refresh_tokens').select(['uid', 'grant_id', 'client_id']).where('token_hash', '=', tokenHash).executeTakeFirst();
  if (!r) return null;
  await deleteGrant(db, r.uid, r.grant_id);
  return { uid: r.uid, grantId: r.grant_id, clientId: r.client_id };
}

/** Deletes retired rows older than RETIRED_REFRESH_KEEP_MS (every account's; by the retired_at index). */
export async function pruneRetiredRefreshTokens(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('oauth_retired_refresh_tokens').where('retired_at', '<', now - RETIRED_REFRESH_KEEP_MS).execute();
}

async function deleteRetiredOfGrant(db: Executor, uid: string, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_retired_refresh_tokens').where('uid', '=', uid).where('grant_id', '=', grantId).execute();
}

/** Everything of the account's grants: codes, refresh tokens (retired ones too). */
export async function deleteGrantsOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('uid', '=', uid).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('oauth_retired_refresh_tokens').where('uid', '=', uid).execute();
}

/** A password change: refresh tokens of public and can-grant clients end (protocol.md §8.1); codes in flight too. */
export async function deletePublicGrantsOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('uid', '=', uid).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid)
    .where('client_id', 'in', db.selectFrom('oauth_clients').select('id').where((eb) => eb.or([eb('public_client', '=', 1), eb('can_grant', '=', 1)])))
    .execute();
  await db.deleteFrom('oauth_retired_refresh_tokens').where('uid', '=', uid)
    .where('client_id', 'in', db.selectFrom('oauth_clients').select('id').where((eb) => eb.or([eb('public_client', '=', 1), eb('can_grant', '=', 1)])))
    .execute();
}

/** The account's refresh tokens with their client's name, most recently used first (attached clients). */
export async function listRefreshTokensOf(db: Executor, uid: string) {
  const rows = await db.selectFrom('oauth_refresh_tokens').innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_refresh_tokens.client_id')
    .select(['oauth_refresh_tokens.token_hash', 'oauth_refresh_tokens.client_id', 'oauth_clients.name', 'oauth_refresh_tokens.scope',
      'oauth_refresh_tokens.created_at', 'oauth_refresh_tokens.last_used_at'])
    .where('oauth_refresh_tokens.uid', '=', uid).orderBy('oauth_refresh_tokens.last_used_at', 'desc').limit(500).execute();
  return rows.map((r) => ({
    id: r.token_hash, clientId: r.client_id, clientName: r.name, scope: r.scope.split(' ').filter(Boolean), createdAt: Number(r.created_at), lastUsedAt: Number(r.last_used_at),
  }));
}

export async function deleteClientGrantsOf(db: Executor, uid: string, clientId: string): Promise<number> {
  const r = await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid).where('client_id', '=', clientId).executeTakeFirst();
  await db.deleteFrom('oauth_access_tokens').where('uid', '=', uid).where('client_id', '=', clientId).execute();
  await db.deleteFrom('oauth_retired_refresh_tokens').where('uid', '=', uid).where('client_id', '=', clientId).execute();
  return Number(r.numDeletedRows);
}
