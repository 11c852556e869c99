import type { Selectable } from 'kysely';
import type { Executor } from '../../storage/executor.js';
import type { EmailsTable } from './tables.js';

// The secondary rows of the `emails` table, which the account core owns (it writes the primary row
// at sign-up and deletes every row with the account): the secondary-emails domain adds, proves,
// removes and promotes the other rows through these functions (account-core/index.ts exports them
// as `secondaryAddresses`), so that only the table's owner names it. The primary key on
// normalized_email makes an address one account's, primary or secondary, confirmed or pending: a
// lost race is a failed INSERT, never two owners.

export interface AddressRecord {
  email: string;
  normalizedEmail: string;
  uid: string;
  isVerified: boolean;
  isPrimary: boolean;
  verifiedAt: number | null;
  createdAt: number;
  codeHash: string | null;
  codeExpiresAt: number | null;
  codeTries: number | null;
  codeFailures: number;
}

function rowToAddress(r: Selectable<EmailsTable>): AddressRecord {
  return {
    email: r.email, normalizedEmail: r.normalized_email, uid: r.uid,
    isVerified: r.is_verified === 1, isPrimary: r.is_primary === 1, verifiedAt: r.verified_at, createdAt: r.created_at,
    codeHash: r.code_hash, codeExpiresAt: r.code_expires_at, codeTries: r.code_tries, codeFailures: r.code_failures,
  };
}

/** The address's row, whichever account holds it. */
export async function findAddress(db: Executor, normalizedEmail: string): Promise<AddressRecord | null> {
  const row = await db.selectFrom('emails').selectAll().where('normalized_email', '=', normalizedEmail).executeTakeFirst();
  return row ? rowToAddress(row) : null;
}

/** The account's addresses: the primary first, then in the order they were added. */
export async function listAddresses(db: Executor, uid: string): Promise<AddressRecord[]> {
  const rows = await db.selectFrom('emails').selectAll().where('uid', '=', uid).orderBy('is_primary', 'desc').orderBy('created_at').execute();
  return rows.map(rowToAddress);
}

/** A new, unconfirmed secondary address with its first code. Fails with a unique violation when the address is taken. */
export async function insertSecondary(db: Executor, a: { uid: string; email: string; normalizedEmail: string; emailCode: string; codeHash: string; codeExpiresAt: number; codeTries: number; now: number }): Promise<void> {
  await db.insertInto('emails').values({
    normalized_email: a.normalizedEmail, email: a.email, uid: a.uid, email_code: a.emailCode,
    is_verified: 0, is_primary: 0, verified_at: null, created_at: a.now,
    code_hash: a.codeHash, code_expires_at: a.codeExpiresAt, code_tries: a.codeTries, code_failures: 0,
  }).execute();
}

/** Replaces the pending code of the account's unconfirmed secondary address (its failures stay); false when there is none. */
export async function replaceCode(db: Executor, uid: string, normalizedEmail: string, code: { hash: string; expiresAt: number; tries: number }): Promise<boolean> {
  const r = await db.updateTable('emails')
    .set({ code_hash: code.hash, code_expires_at: code.expiresAt, code_tries: code.tries })
    .where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).where('is_primary', '=', 0).where('is_verified', '=', 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Spends one try of the pending code before it is compared, in one UPDATE whose condition holds
 * the whole rule (a code, tries left, not expired, failures under the limit), so parallel guesses
 * cannot share a try.
 */
export async function spendTry(db: Executor, uid: string, normalizedEmail: string, now: number, maxFailures: number): Promise<boolean> {
  const r = await db.updateTable('emails')
    .set((eb) => ({ code_tries: eb('code_tries', '-', 1) }))
    .where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).where('is_primary', '=', 0).where('is_verified', '=', 0)
    .where('code_hash', 'is not', null).where('code_tries', '>', 0).where('code_expires_at', '>', now).where('code_failures', '<', maxFailures)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Counts a wrong code against the address (across resends); returns the failures now counted. */
export async function recordFailure(db: Executor, uid: string, normalizedEmail: string): Promise<number> {
  await db.updateTable('emails')
    .set((eb) => ({ code_failures: eb('code_failures', '+', 1) }))
    .where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).where('is_verified', '=', 0)
    .execute();
  const row = await db.selectFrom('emails').select('code_failures').where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).executeTakeFirst();
  return row?.code_failures ?? 0;
}

/** Confirms the address if `codeHash` is still its pending code: single use, whoever races. */
export async function markVerified(db: Executor, uid: string, normalizedEmail: string, codeHash: string, now: number): Promise<boolean> {
  const r = await db.updateTable('emails')
    .set({ is_verified: 1, verified_at: now, code_hash: null, code_expires_at: null, code_tries: null, code_failures: 0 })
    .where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).where('is_verified', '=', 0).where('code_hash', '=', codeHash)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Removes one of the account's secondary addresses (never the primary); false when there was none. */
export async function deleteSecondary(db: Executor, uid: string, normalizedEmail: string): Promise<boolean> {
  const r = await db.deleteFrom('emails').where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).where('is_primary', '=', 0).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Deletes the address if it is still an unconfirmed secondary of `uid` (a claim never proven); false otherwise. */
export async function deleteUnconfirmedSecondary(db: Executor, uid: string, normalizedEmail: string): Promise<boolean> {
  const r = await db.deleteFrom('emails')
    .where('uid', '=', uid).where('normalized_email', '=', normalizedEmail).where('is_primary', '=', 0).where('is_verified', '=', 0)
    .executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/**
 * Makes a confirmed secondary address the primary. The account row is written first, which locks
 * it: two changes of the same account run one after the other. The address the v1 password was
 * stretched with is kept (COALESCE: the first change records the original primary) and cleared
 * when the new primary is that very address again.
 */
export async function promote(db: Executor, uid: string, address: AddressRecord, now: number): Promise<boolean> {
  // password_email is assigned before email: MySQL evaluates SET left to right with the new values.
  await db.updateTable('accounts')
    .set((eb) => ({ password_email: eb.fn.coalesce('password_email', 'email'), email: address.email, profile_changed_at: now }))
    .where('uid', '=', uid)
    .execute();
  await db.updateTable('accounts').set({ password_email: null }).where('uid', '=', uid).where('password_email', '=', address.email).execute();
  await db.updateTable('emails').set({ is_primary: 0 }).where('uid', '=', uid).where('is_primary', '=', 1).execute();
  const r = await db.updateTable('emails').set({ is_primary: 1 })
    .where('uid', '=', uid).where('normalized_email', '=', address.normalizedEmail).where('is_verified', '=', 1)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
