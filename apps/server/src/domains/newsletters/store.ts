import type { Executor } from '../../storage/executor.js';

// The account_newsletters table (migration 0016): one row per account that chose newsletters.

const parse = (raw: string): string[] => JSON.parse(raw) as string[];

export async function listNewsletters(db: Executor, uid: string): Promise<string[]> {
  const row = await db.selectFrom('account_newsletters').select('newsletters').where('uid', '=', uid).executeTakeFirst();
  return row ? parse(row.newsletters) : [];
}

/**
 * Locks the account's row, when it has one, for the rest of the transaction (an update: the one
 * locking statement every dialect has; it changes `updated_at`, since MySQL counts only rows an
 * update changed); false when there is none.
 */
export async function lockNewsletters(db: Executor, uid: string, now: number): Promise<boolean> {
  const r = await db.updateTable('account_newsletters').set({ updated_at: now }).where('uid', '=', uid).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Writes the account's choices; `exists` from lockNewsletters. A row inserted meanwhile by another transaction: a unique violation. */
export async function writeNewsletters(db: Executor, uid: string, newsletters: string[], exists: boolean, now: number): Promise<void> {
  if (!newsletters.length) {
    if (exists) await db.deleteFrom('account_newsletters').where('uid', '=', uid).execute();
    return;
  }
  const value = JSON.stringify(newsletters);
  if (exists) await db.updateTable('account_newsletters').set({ newsletters: value, updated_at: now }).where('uid', '=', uid).execute();
  else await db.insertInto('account_newsletters').values({ uid, newsletters: value, updated_at: now }).execute();
}

export async function deleteNewslettersOf(db: Executor, uid: string): Promise<number> {
  const r = await db.deleteFrom('account_newsletters').where('uid', '=', uid).executeTakeFirst();
  return Number(r.numDeletedRows);
}
