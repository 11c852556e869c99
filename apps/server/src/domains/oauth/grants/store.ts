import type { Selectable } from 'kysely';
import type { Executor } from '../../../storage/executor.js';
import type { OauthCodesTable, OauthRefreshTokensTable } from '../../../storage/schema.js';

// Authorization codes and refresh tokens (migration 0017). Both are stored only as SHA-256 of their
// bytes (protocol.md §8.1); the refresh token's hash doubles as its public handle.

export interface AuthorizationCode {
  codeHash: string;
  clientId: string;
  uid: string;
  scope: string[];
  authAt: number;
  amr: string[];
  aal: number;
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
}

export interface RefreshToken {
  tokenHash: string;
  clientId: string;
  uid: string;
  scope: string[];
  authAt: number;
  amr: string[];
  aal: number;
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
    issuedAccessHash: r.issued_access_hash, issuedRefreshHash: r.issued_refresh_hash,
  };
}

function rowToRefresh(r: Selectable<OauthRefreshTokensTable>): RefreshToken {
  return {
    tokenHash: r.token_hash, clientId: r.client_id, uid: r.uid, scope: words(r.scope), authAt: Number(r.auth_at), amr: words(r.amr),
    aal: Number(r.aal), createdAt: Number(r.created_at), lastUsedAt: Number(r.last_used_at), expiresAt: Number(r.expires_at),
  };
}

export async function insertCode(db: Executor, c: Omit<AuthorizationCode, 'usedAt' | 'issuedAccessHash' | 'issuedRefreshHash'>): Promise<void> {
  await db.insertInto('oauth_codes').values({
    code_hash: c.codeHash, client_id: c.clientId, uid: c.uid, scope: c.scope.join(' '), auth_at: c.authAt, amr: c.amr.join(' '), aal: c.aal,
    offline: c.offline ? 1 : 0, code_challenge: c.codeChallenge, redirect_uri: c.redirectUri, nonce: c.nonce, keys_jwe: c.keysJwe,
    created_at: c.createdAt, expires_at: c.expiresAt, used_at: null, issued_access_hash: null, issued_refresh_hash: null,
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
    aal: t.aal, created_at: t.createdAt, last_used_at: t.lastUsedAt, expires_at: t.expiresAt,
  }).execute();
}

export async function findRefreshToken(db: Executor, tokenHash: string): Promise<RefreshToken | null> {
  const r = await db.selectFrom('oauth_refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return r ? rowToRefresh(r) : null;
}

export async function touchRefreshToken(db: Executor, tokenHash: string, now: number): Promise<void> {
  await db.updateTable('oauth_refresh_tokens').set({ last_used_at: now }).where('token_hash', '=', tokenHash).execute();
}

/** Deletes one refresh token; true when it existed (a rotation's loser finds it gone). */
export async function deleteRefreshToken(db: Executor, tokenHash: string): Promise<boolean> {
  const r = await db.deleteFrom('oauth_refresh_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function deleteAccessTokenByHash(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('oauth_access_tokens').where('token_hash', '=', tokenHash).execute();
}

/** Everything of the account's grants: codes and refresh tokens. */
export async function deleteGrantsOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('uid', '=', uid).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid).execute();
}

/** A password change: refresh tokens of public and can-grant clients end (protocol.md §8.1); codes in flight too. */
export async function deletePublicGrantsOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('uid', '=', uid).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid)
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

export async function deleteRefreshTokenOf(db: Executor, uid: string, tokenHash: string, clientId?: string): Promise<boolean> {
  let q = db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid).where('token_hash', '=', tokenHash);
  if (clientId) q = q.where('client_id', '=', clientId);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function deleteClientGrantsOf(db: Executor, uid: string, clientId: string): Promise<number> {
  const r = await db.deleteFrom('oauth_refresh_tokens').where('uid', '=', uid).where('client_id', '=', clientId).executeTakeFirst();
  await db.deleteFrom('oauth_access_tokens').where('uid', '=', uid).where('client_id', '=', clientId).execute();
  return Number(r.numDeletedRows);
}

/** Clients holding live access tokens of the account (authorized clients without a refresh token). */
export async function accessTokenClientsOf(db: Executor, uid: string, now: number) {
  const rows = await db.selectFrom('oauth_access_tokens').innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_access_tokens.client_id')
    .select(['oauth_access_tokens.client_id', 'oauth_clients.name', 'oauth_access_tokens.scope', 'oauth_access_tokens.created_at'])
    .where('oauth_access_tokens.uid', '=', uid).where('oauth_access_tokens.expires_at', '>', now).orderBy('oauth_access_tokens.created_at', 'desc').limit(500).execute();
  return rows.map((r) => ({ clientId: r.client_id, clientName: r.name, scope: r.scope.split(' ').filter(Boolean), createdAt: Number(r.created_at) }));
}
