import type { Executor } from '../../storage/executor.js';

// The recovery_phones and recovery_phone_codes tables (migration 0012).

export type CodePurpose = 'setup' | 'signin' | 'reset';

export interface PhoneCode {
  uid: string;
  purpose: CodePurpose;
  codeHash: string;
  phoneNumber: string;
  failures: number;
  createdAt: number;
  expiresAt: number;
}

export async function findPhone(db: Executor, uid: string): Promise<{ phoneNumber: string; createdAt: number } | null> {
  const row = await db.selectFrom('recovery_phones').select(['phone_number', 'created_at']).where('uid', '=', uid).executeTakeFirst();
  return row ? { phoneNumber: row.phone_number, createdAt: Number(row.created_at) } : null;
}

/** How many accounts other than `uid` have this number. */
export async function countOtherAccounts(db: Executor, phoneNumber: string, uid: string): Promise<number> {
  const row = await db.selectFrom('recovery_phones').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('phone_number', '=', phoneNumber).where('uid', '!=', uid).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertPhone(db: Executor, uid: string, phoneNumber: string, now: number): Promise<void> {
  await db.insertInto('recovery_phones').values({ uid, phone_number: phoneNumber, created_at: now }).execute();
}

export async function updatePhone(db: Executor, uid: string, phoneNumber: string, now: number): Promise<boolean> {
  const done = await db.updateTable('recovery_phones').set({ phone_number: phoneNumber, created_at: now }).where('uid', '=', uid).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export async function deletePhone(db: Executor, uid: string): Promise<boolean> {
  const done = await db.deleteFrom('recovery_phones').where('uid', '=', uid).executeTakeFirst();
  return Number(done.numDeletedRows) > 0;
}

export async function findCode(db: Executor, uid: string, purpose: CodePurpose): Promise<PhoneCode | null> {
  const r = await db.selectFrom('recovery_phone_codes').selectAll().where('uid', '=', uid).where('purpose', '=', purpose).executeTakeFirst();
  return r ? {
    uid: r.uid, purpose: r.purpose as CodePurpose, codeHash: r.code_hash, phoneNumber: r.phone_number,
    failures: Number(r.failures), createdAt: Number(r.created_at), expiresAt: Number(r.expires_at),
  } : null;
}

/** Stores a new code for (uid, purpose), replacing any earlier one; `failures` is what the caller carries over. */
export async function putCode(db: Executor, code: PhoneCode): Promise<void> {
  await db.deleteFrom('recovery_phone_codes').where('uid', '=', code.uid).where('purpose', '=', code.purpose).execute();
  await db.insertInto('recovery_phone_codes').values({
    uid: code.uid, purpose: code.purpose, code_hash: code.codeHash, phone_number: code.phoneNumber,
    failures: code.failures, created_at: code.createdAt, expires_at: code.expiresAt,
  }).execute();
}

/**
 * Takes one guess from the code's budget before the guess is compared: true when one was left.
 * One conditional update, so requests racing with guesses cannot take more than the budget.
 */
export async function takeGuess(db: Executor, uid: string, purpose: CodePurpose, codeHash: string, maxFailures: number): Promise<boolean> {
  const done = await db.updateTable('recovery_phone_codes').set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('uid', '=', uid).where('purpose', '=', purpose).where('code_hash', '=', codeHash).where('failures', '<', maxFailures)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Spends the code: true when this call deleted it (of two racing uses, one wins). */
export async function spendCode(db: Executor, uid: string, purpose: CodePurpose, codeHash: string): Promise<boolean> {
  const done = await db.deleteFrom('recovery_phone_codes').where('uid', '=', uid).where('purpose', '=', purpose).where('code_hash', '=', codeHash).executeTakeFirst();
  return Number(done.numDeletedRows) === 1;
}

export async function deleteCodes(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('recovery_phone_codes').where('uid', '=', uid).execute();
}
