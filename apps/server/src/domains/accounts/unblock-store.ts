import type { Executor } from '../../storage/executor.js';

// The unblock codes' table (protocol.md §4.4): one live code per account, as an HMAC.

export async function deleteUnblockCodes(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('unblock_codes').where('uid', '=', uid).execute();
}

/** The account's one live unblock code: a new one replaces the old. */
export async function replaceUnblockCode(db: Executor, row: { uid: string; codeHash: string; createdAt: number }): Promise<void> {
  await db.deleteFrom('unblock_codes').where('uid', '=', row.uid).execute();
  await db.insertInto('unblock_codes').values({ uid: row.uid, code_hash: row.codeHash, created_at: row.createdAt }).execute();
}

/** The account's live unblock code starts a new lifetime now (it was mailed, so only the mailbox has it); false without one. */
export async function renewUnblockCode(db: Executor, uid: string, now: number): Promise<boolean> {
  const result = await db.updateTable('unblock_codes').set({ created_at: now }).where('uid', '=', uid).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether the account's unblock code is this one and was made after `notBefore` (nothing is spent). */
export async function hasUnblockCode(db: Executor, uid: string, codeHash: string, notBefore: number): Promise<boolean> {
  const row = await db.selectFrom('unblock_codes').select('uid')
    .where('uid', '=', uid).where('code_hash', '=', codeHash).where('created_at', '>', notBefore)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Spends the account's unblock code if it is this one and was made after `notBefore`: a single
 * DELETE, so two requests racing with the same code cannot both pass.
 */
export async function takeUnblockCode(db: Executor, uid: string, codeHash: string, notBefore: number): Promise<boolean> {
  const result = await db.deleteFrom('unblock_codes')
    .where('uid', '=', uid).where('code_hash', '=', codeHash).where('created_at', '>', notBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
