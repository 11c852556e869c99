import { hash } from 'node:crypto';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Executor } from '../../../storage/executor.js';
import { groupedInsert } from '../../../storage/grouped-insert.js';
import { preparedQuery } from '../../../storage/prepared.js';
import type { Database } from '../../../storage/schema.js';
import type { OauthAccessTokensTable, OauthClientsTable } from '../tables.js';
import { isClientId, rowToClient, type OAuthClient } from '../clients/store.js';

// Access tokens: every grant writes them, introspection, userinfo, /verify and the bearer strategy
// read them (through cached-reads.ts), and revocation, password changes and resets delete them.

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

// Every introspection and bearer-token request reads an access token: compiled once
// (storage/prepared.ts), run with the key.
const accessTokenByHash = preparedQuery<Selectable<OauthAccessTokensTable>, [string]>((db) => db.selectFrom('oauth_access_tokens').selectAll().where('token_hash', '=', ''));

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

/** The grant id of a stored access token, or null (unknown, or older than grant ids). */
export async function grantIdOfAccessToken(db: Executor, tokenHash: string): Promise<string | null> {
  const r = await db.selectFrom('oauth_access_tokens').select('grant_id').where('token_hash', '=', tokenHash).executeTakeFirst();
  return r?.grant_id ?? null;
}

export async function deleteAccessTokenByHash(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('oauth_access_tokens').where('token_hash', '=', tokenHash).execute();
}

/** Clients holding live access tokens of the account (authorized clients without a refresh token). */
export async function accessTokenClientsOf(db: Executor, uid: string, now: number) {
  const rows = await db.selectFrom('oauth_access_tokens').innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_access_tokens.client_id')
    .select(['oauth_access_tokens.client_id', 'oauth_clients.name', 'oauth_access_tokens.scope', 'oauth_access_tokens.created_at'])
    .where('oauth_access_tokens.uid', '=', uid).where('oauth_access_tokens.expires_at', '>', now).orderBy('oauth_access_tokens.created_at', 'desc').limit(500).execute();
  return rows.map((r) => ({ clientId: r.client_id, clientName: r.name, scope: r.scope.split(' ').filter(Boolean), createdAt: Number(r.created_at) }));
}
