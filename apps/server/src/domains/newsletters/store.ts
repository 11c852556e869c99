import type { Executor } from '../../storage/executor.js';

// The account_newsletters table (migration 0016): one row per newsletter an account chose.

export async function listNewsletters(db: Executor, uid: string): Promise<string[]> {
  const rows = await db.selectFrom('account_newsletters').select('newsletter').where('uid', '=', uid).orderBy('newsletter').execute();
  return rows.map((r) => r.newsletter);
}

/** Makes the account's rows exactly `newsletters` (the caller's transaction). */
export async function replaceNewsletters(db: Executor, uid: string, newsletters: string[], now: number): Promise<void> {
  await db.deleteFrom('account_newsletters').where('uid', '=', uid).execute();
  if (newsletters.length) {
    await db.insertInto('account_newsletters').values(newsletters.map((newsletter) => ({ uid, newsletter, created_at: now }))).execute();
  }
}

export async function deleteNewslettersOf(db: Executor, uid: string): Promise<number> {
  const r = await db.deleteFrom('account_newsletters').where('uid', '=', uid).executeTakeFirst();
  return Number(r.numDeletedRows);
}
