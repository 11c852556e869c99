import type { Executor } from '../../storage/executor.js';

// The 8-digit code of /password/forgot/send_otp: one per account, hashed, with tries.

export async function replaceForgotOtp(db: Executor, row: { uid: string; codeHash: string; expiresAt: number; tries: number; now: number }): Promise<void> {
  await db.deleteFrom('password_forgot_otps').where('uid', '=', row.uid).execute();
  await db.insertInto('password_forgot_otps').values({
    uid: row.uid, code_hash: row.codeHash, expires_at: row.expiresAt, tries: row.tries, created_at: row.now,
  }).execute();
}

/** Spends a try atomically, then tells whether the stored hash equals `codeHash`. */
export async function spendForgotOtpTry(db: Executor, uid: string, now: number): Promise<{ codeHash: string; triesLeft: number } | 'expired' | 'none'> {
  const spent = await db.updateTable('password_forgot_otps')
    .set((eb) => ({ tries: eb('tries', '-', 1) }))
    .where('uid', '=', uid).where('tries', '>', 0).where('expires_at', '>', now)
    .executeTakeFirst();
  const row = await db.selectFrom('password_forgot_otps').select(['code_hash', 'tries', 'expires_at']).where('uid', '=', uid).executeTakeFirst();
  if (Number(spent.numUpdatedRows) === 0) return row && row.expires_at <= now ? 'expired' : 'none';
  return row ? { codeHash: row.code_hash, triesLeft: row.tries } : 'none';
}

export async function deleteForgotOtp(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('password_forgot_otps').where('uid', '=', uid).execute();
}
