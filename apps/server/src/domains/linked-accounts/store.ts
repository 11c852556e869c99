import type { Selectable } from 'kysely';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor } from '../../storage/executor.js';
import type { LinkedAccountsTable } from './tables.js';
import type { Provider } from './providers/port.js';

// The linked-accounts tables: links (linked_accounts), the sessions they opened
// (linked_account_sessions) and the id_tokens already spent (linked_account_tokens).

export interface LinkedAccount {
  uid: string;
  provider: Provider;
  subject: string;
  email: string | null;
  enabled: boolean;
  createdAt: number;
  authAt: number;
}

function rowToLink(r: Selectable<LinkedAccountsTable>): LinkedAccount {
  return {
    uid: r.uid, provider: r.provider as Provider, subject: r.subject, email: r.email,
    enabled: Number(r.enabled) === 1, createdAt: Number(r.created_at), authAt: Number(r.auth_at),
  };
}

export async function findLinkBySubject(db: Executor, provider: Provider, subject: string): Promise<LinkedAccount | null> {
  const row = await db.selectFrom('linked_accounts').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
  return row ? rowToLink(row) : null;
}

export async function listLinks(db: Executor, uid: string): Promise<LinkedAccount[]> {
  const rows = await db.selectFrom('linked_accounts').selectAll().where('uid', '=', uid).orderBy('created_at').execute();
  return rows.map(rowToLink);
}

/** Adds a link; false when the account already has one for the provider or the subject is linked elsewhere. */
export async function insertLink(db: Executor, l: LinkedAccount): Promise<boolean> {
  try {
    await db.insertInto('linked_accounts').values({
      uid: l.uid, provider: l.provider, subject: l.subject, email: l.email, enabled: l.enabled ? 1 : 0, created_at: l.createdAt, auth_at: l.authAt,
    }).execute();
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
}

/** A sign-in through the link: its time, the address reported, and enabled again (the person consented anew). */
export async function touchLink(db: Executor, uid: string, provider: Provider, authAt: number, email: string | null): Promise<void> {
  await db.updateTable('linked_accounts').set({ auth_at: authAt, enabled: 1, ...(email ? { email } : {}) })
    .where('uid', '=', uid).where('provider', '=', provider).execute();
}

export async function setLinkEmail(db: Executor, uid: string, provider: Provider, email: string): Promise<void> {
  await db.updateTable('linked_accounts').set({ email }).where('uid', '=', uid).where('provider', '=', provider).execute();
}

/** Apple reported the person revoked consent: the link stops counting as used until a new sign-in. */
export async function disableLink(db: Executor, uid: string, provider: Provider): Promise<void> {
  await db.updateTable('linked_accounts').set({ enabled: 0 }).where('uid', '=', uid).where('provider', '=', provider).execute();
}

/**
 * Takes the write locks on the account's links (a no-op update: row locks on PostgreSQL and
 * MySQL, the database lock on SQLite), so that two unlinks of one account run one after the other.
 */
export async function lockLinks(db: Executor, uid: string): Promise<void> {
  await db.updateTable('linked_accounts').set((eb) => ({ enabled: eb.ref('enabled') })).where('uid', '=', uid).execute();
}

export async function deleteLink(db: Executor, uid: string, provider: Provider): Promise<boolean> {
  const res = await db.deleteFrom('linked_accounts').where('uid', '=', uid).where('provider', '=', provider).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function deleteLinksOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('linked_accounts').where('uid', '=', uid).execute();
}

export async function rememberSession(db: Executor, sessionId: string, uid: string, provider: Provider): Promise<void> {
  await db.insertInto('linked_account_sessions').values({ session_id_hash: sessionId, uid, provider }).execute();
}

/** The account's sessions opened by a linked sign-in: session handle → provider. */
export async function sessionProviders(db: Executor, uid: string): Promise<Map<string, Provider>> {
  const rows = await db.selectFrom('linked_account_sessions').select(['session_id_hash', 'provider']).where('uid', '=', uid).execute();
  return new Map(rows.map((r) => [r.session_id_hash, r.provider as Provider]));
}

export async function forgetSession(db: Executor, sessionId: string): Promise<void> {
  await db.deleteFrom('linked_account_sessions').where('session_id_hash', '=', sessionId).execute();
}

/** Forgets the account's session rows, all of them or all but `keep`. */
export async function forgetSessionsOf(db: Executor, uid: string, keep: string | null = null): Promise<void> {
  let q = db.deleteFrom('linked_account_sessions').where('uid', '=', uid);
  if (keep) q = q.where('session_id_hash', '<>', keep);
  await q.execute();
}

/**
 * Spends an id_token: true the first time its hash is seen, false on any later use until it
 * expires. Rows of expired tokens are deleted on the way (they would be refused by `exp` anyway).
 */
export async function spendToken(db: Executor, hash: string, expiresAt: number, now: number): Promise<boolean> {
  await db.deleteFrom('linked_account_tokens').where('expires_at', '<', now).execute();
  try {
    await db.insertInto('linked_account_tokens').values({ token_hash: hash, expires_at: expiresAt }).execute();
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
}
