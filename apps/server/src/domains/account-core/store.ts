import type { Selectable } from 'kysely';
import { normalizeEmail } from '../../email-address.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor } from '../../storage/executor.js';
import type { AccountsTable } from './tables.js';

// The account core's tables: accounts, emails and the two budgets of wrong codes.

export interface Account {
  uid: string;
  /** The primary address: what sign-in looks up, where mail goes. */
  email: string;
  /**
   * The address the v1 password was stretched with when it is no longer the primary (after
   * set_primary); null while the primary is that address. `passwordEmailOf` reads both.
   */
  passwordEmail: string | null;
  emailCode: string;
  emailVerified: boolean;
  kA: string;
  wrapWrapKb: string;
  authSalt: string;
  verifyHash: string;
  verifierVersion: number;
  verifierSetAt: number;
  createdAt: number;
  locale: string | null;
  lockedAt: number | null;
  disabledAt: number | null;
  metricsOptOutAt: number | null;
  profileChangedAt: number;
  keysChangedAt: number;
  clientSalt: string | null;
  verifyHashV2: string | null;
  wrapWrapKbV2: string | null;
}

export interface EmailRecord {
  email: string;
  normalizedEmail: string;
  uid: string;
  emailCode: string;
  isVerified: boolean;
  isPrimary: boolean;
  verifiedAt: number | null;
  createdAt: number;
}

function rowToAccount(r: Selectable<AccountsTable>): Account {
  return {
    uid: r.uid,
    email: r.email,
    passwordEmail: r.password_email,
    emailCode: r.email_code,
    emailVerified: r.email_verified === 1,
    kA: r.k_a,
    wrapWrapKb: r.wrap_wrap_kb,
    authSalt: r.auth_salt,
    verifyHash: r.verify_hash,
    verifierVersion: r.verifier_version,
    verifierSetAt: r.verifier_set_at,
    createdAt: r.created_at,
    locale: r.locale,
    lockedAt: r.locked_at,
    disabledAt: r.disabled_at,
    metricsOptOutAt: r.metrics_opt_out_at,
    profileChangedAt: r.profile_changed_at,
    keysChangedAt: r.keys_changed_at,
    clientSalt: r.client_salt,
    verifyHashV2: r.verify_hash_v2,
    wrapWrapKbV2: r.wrap_wrap_kb_v2,
  };
}

/** onepw v1: the address a client must stretch the password with (the salt), primary or not. */
export function passwordEmailOf(a: Pick<Account, 'email' | 'passwordEmail'>): string {
  return a.passwordEmail ?? a.email;
}

export async function insertAccount(db: Executor, a: Account): Promise<void> {
  await db.insertInto('accounts').values({
    uid: a.uid,
    email: a.email,
    password_email: a.passwordEmail,
    email_code: a.emailCode,
    email_verified: a.emailVerified ? 1 : 0,
    k_a: a.kA,
    wrap_wrap_kb: a.wrapWrapKb,
    auth_salt: a.authSalt,
    verify_hash: a.verifyHash,
    verifier_version: a.verifierVersion,
    verifier_set_at: a.verifierSetAt,
    created_at: a.createdAt,
    locale: a.locale,
    locked_at: a.lockedAt,
    disabled_at: a.disabledAt,
    metrics_opt_out_at: a.metricsOptOutAt,
    profile_changed_at: a.profileChangedAt,
    keys_changed_at: a.keysChangedAt,
    client_salt: a.clientSalt,
    verify_hash_v2: a.verifyHashV2,
    wrap_wrap_kb_v2: a.wrapWrapKbV2,
  }).execute();
}

export async function insertEmail(db: Executor, e: EmailRecord): Promise<void> {
  await db.insertInto('emails').values({
    normalized_email: e.normalizedEmail,
    email: e.email,
    uid: e.uid,
    email_code: e.emailCode,
    is_verified: e.isVerified ? 1 : 0,
    is_primary: e.isPrimary ? 1 : 0,
    verified_at: e.verifiedAt,
    created_at: e.createdAt,
  }).execute();
}

export async function findAccount(db: Executor, uid: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('uid', '=', uid).executeTakeFirst();
  return row ? rowToAccount(row) : null;
}

/** The account owning an address, and whether that address is its primary one. */
export async function findAccountByEmail(db: Executor, email: string): Promise<{ account: Account; emailRecord: EmailRecord } | null> {
  const row = await db
    .selectFrom('emails as e')
    .innerJoin('accounts as a', 'a.uid', 'e.uid')
    .selectAll('a')
    .select(['e.normalized_email', 'e.email as e_email', 'e.email_code as e_code', 'e.is_verified', 'e.is_primary', 'e.verified_at', 'e.created_at as e_created_at'])
    .where('e.normalized_email', '=', normalizeEmail(email))
    .executeTakeFirst();
  if (!row) return null;
  return {
    account: rowToAccount(row),
    emailRecord: {
      email: row.e_email, normalizedEmail: row.normalized_email, uid: row.uid, emailCode: row.e_code,
      isVerified: row.is_verified === 1, isPrimary: row.is_primary === 1, verifiedAt: row.verified_at, createdAt: row.e_created_at,
    },
  };
}

export async function listEmails(db: Executor, uid: string): Promise<EmailRecord[]> {
  const rows = await db.selectFrom('emails').selectAll().where('uid', '=', uid).orderBy('is_primary', 'desc').orderBy('created_at').execute();
  return rows.map((r) => ({
    email: r.email, normalizedEmail: r.normalized_email, uid: r.uid, emailCode: r.email_code,
    isVerified: r.is_verified === 1, isPrimary: r.is_primary === 1, verifiedAt: r.verified_at, createdAt: r.created_at,
  }));
}

/**
 * Deletes another account's unproven secondary claim on an address once it is older than
 * `createdBefore` (its claim expired); true when it did. One DELETE with the whole condition, so a
 * claim confirmed meanwhile is kept.
 */
export async function deleteStaleClaim(db: Executor, normalizedEmail: string, createdBefore: number): Promise<boolean> {
  const r = await db.deleteFrom('emails')
    .where('normalized_email', '=', normalizedEmail).where('is_primary', '=', 0).where('is_verified', '=', 0)
    .where('created_at', '<=', createdBefore)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Marks the account's primary address verified; false when it already was. */
export async function markEmailVerified(db: Executor, uid: string, now: number): Promise<boolean> {
  const r = await db.updateTable('accounts').set({ email_verified: 1 }).where('uid', '=', uid).where('email_verified', '=', 0).executeTakeFirst();
  await db.updateTable('emails').set({ is_verified: 1, verified_at: now }).where('uid', '=', uid).where('is_primary', '=', 1).where('is_verified', '=', 0).execute();
  return Number(r.numUpdatedRows) === 1;
}

export interface PasswordFields {
  authSalt: string;
  verifyHash: string;
  wrapWrapKb: string;
  verifierSetAt: number;
  clientSalt: string | null;
  verifyHashV2: string | null;
  wrapWrapKbV2: string | null;
  /** Set when kB changed (reset without recovery key). */
  keysChangedAt?: number;
  /** The address the new password was stretched with. */
  email?: string;
}

/** Writes new password fields; with `onlyIfUnset`, only on an account that has no password yet. */
export async function updatePassword(db: Executor, uid: string, p: PasswordFields, options: { onlyIfUnset?: boolean } = {}): Promise<boolean> {
  let q = db.updateTable('accounts').set({
    auth_salt: p.authSalt,
    verify_hash: p.verifyHash,
    wrap_wrap_kb: p.wrapWrapKb,
    verifier_set_at: p.verifierSetAt,
    client_salt: p.clientSalt,
    verify_hash_v2: p.verifyHashV2,
    wrap_wrap_kb_v2: p.wrapWrapKbV2,
    profile_changed_at: p.verifierSetAt,
    ...(p.keysChangedAt !== undefined ? { keys_changed_at: p.keysChangedAt } : {}),
    ...(p.email !== undefined ? { email: p.email } : {}),
  }).where('uid', '=', uid);
  if (options.onlyIfUnset) q = q.where('verifier_set_at', '=', 0);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Records which OAuth client created the account as a stub (issue 9, hole 10). */
export async function setStubClient(db: Executor, uid: string, clientId: string): Promise<void> {
  await db.updateTable('accounts').set({ stub_client_id: clientId }).where('uid', '=', uid).execute();
}

/** The OAuth client that created the account as a stub; null for sign-ups (and stubs older than that record). */
export async function stubClientOf(db: Executor, uid: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('stub_client_id').where('uid', '=', uid).executeTakeFirst();
  return row?.stub_client_id ?? null;
}

/** Removes the account core's own rows (its code budgets, its addresses, then the account). */
export async function deleteAccountCoreRows(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('account_code_failures').where('uid', '=', uid).execute();
  await db.deleteFrom('account_reset_code_failures').where('uid', '=', uid).execute();
  await db.deleteFrom('emails').where('uid', '=', uid).execute();
  await db.deleteFrom('accounts').where('uid', '=', uid).execute();
}

/** The two budgets of wrong codes an account has (issue 22): its owner's codes, and reset codes anyone may try. */
export type CodeBudgetTable = 'account_code_failures' | 'account_reset_code_failures';

/** The account's wrong codes in its current window of `table` (null with no window or an ended one). */
export async function codeFailures(db: Executor, table: CodeBudgetTable, uid: string, windowStartAfter: number): Promise<{ failures: number; windowStartedAt: number } | null> {
  const row = await db.selectFrom(table).selectAll().where('uid', '=', uid).executeTakeFirst();
  if (!row || row.window_started_at <= windowStartAfter) return null;
  return { failures: row.failures, windowStartedAt: row.window_started_at };
}

/** Counts one wrong code in `table`: in the current window, or a new window starting now. */
export async function recordCodeFailure(db: Executor, table: CodeBudgetTable, uid: string, now: number, windowStartAfter: number): Promise<void> {
  const bumped = await db.updateTable(table)
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('uid', '=', uid).where('window_started_at', '>', windowStartAfter)
    .executeTakeFirst();
  if (Number(bumped.numUpdatedRows) > 0) return;
  await db.deleteFrom(table).where('uid', '=', uid).execute();
  try {
    await db.insertInto(table).values({ uid, failures: 1, window_started_at: now }).execute();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // A parallel failure opened the window first: count this one in it.
    await db.updateTable(table).set((eb) => ({ failures: eb('failures', '+', 1) })).where('uid', '=', uid).execute();
  }
}
