import type { Executor } from '../../storage/executor.js';
import { isUniqueViolation } from '../../storage/db.js';

// The step-up codes (table mfa_otp_codes): one row per session and action. Every write that
// spends something — a try, the code itself — is one conditional UPDATE, so two requests racing
// on the same row can never both spend the same thing.

export interface MfaOtpRow {
  codeHash: string | null;
  expiresAt: number | null;
  tries: number;
  failures: number;
}

/** Stores a new code for the session and action; the row's count of wrong codes is kept. */
export async function putOtp(
  db: Executor, row: { sessionId: string; action: string; uid: string; codeHash: string; expiresAt: number; tries: number; now: number },
): Promise<void> {
  const update = () => db.updateTable('mfa_otp_codes')
    .set({ code_hash: row.codeHash, expires_at: row.expiresAt, tries: row.tries })
    .where('session_id_hash', '=', row.sessionId).where('action', '=', row.action)
    .executeTakeFirst();
  if (Number((await update()).numUpdatedRows) > 0) return;
  try {
    await db.insertInto('mfa_otp_codes').values({
      session_id_hash: row.sessionId, action: row.action, uid: row.uid, code_hash: row.codeHash,
      expires_at: row.expiresAt, tries: row.tries, failures: 0, created_at: row.now,
    }).execute();
  } catch (err) {
    // Another request for the same session and action inserted first: overwrite its code instead.
    if (!isUniqueViolation(err)) throw err;
    await update();
  }
}

export async function findOtp(db: Executor, sessionId: string, action: string): Promise<MfaOtpRow | null> {
  const r = await db.selectFrom('mfa_otp_codes').select(['code_hash', 'expires_at', 'tries', 'failures'])
    .where('session_id_hash', '=', sessionId).where('action', '=', action).executeTakeFirst();
  return r ? { codeHash: r.code_hash, expiresAt: r.expires_at === null ? null : Number(r.expires_at), tries: r.tries, failures: r.failures } : null;
}

/** Spends one try of the code whose hash is `codeHash`; false when none is left or the code changed. */
export async function spendTry(db: Executor, sessionId: string, action: string, codeHash: string): Promise<boolean> {
  const r = await db.updateTable('mfa_otp_codes')
    .set((eb) => ({ tries: eb('tries', '-', 1) }))
    .where('session_id_hash', '=', sessionId).where('action', '=', action)
    .where('code_hash', '=', codeHash).where('tries', '>', 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Uses the code up (single use): true for exactly one of any number of racing requests. */
export async function takeCode(db: Executor, sessionId: string, action: string, codeHash: string): Promise<boolean> {
  const r = await db.updateTable('mfa_otp_codes')
    .set({ code_hash: null, expires_at: null, tries: 0 })
    .where('session_id_hash', '=', sessionId).where('action', '=', action).where('code_hash', '=', codeHash)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Counts a wrong code while the session is under `max`; false for the wrong code that reaches it.
 * Voids the code once its last try is spent.
 */
export async function countFailure(db: Executor, sessionId: string, action: string, codeHash: string, max: number): Promise<boolean> {
  const counted = await db.updateTable('mfa_otp_codes')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('session_id_hash', '=', sessionId).where('action', '=', action).where('failures', '<', max - 1)
    .executeTakeFirst();
  await db.updateTable('mfa_otp_codes')
    .set({ code_hash: null, expires_at: null })
    .where('session_id_hash', '=', sessionId).where('action', '=', action)
    .where('code_hash', '=', codeHash).where('tries', '<=', 0)
    .execute();
  return Number(counted.numUpdatedRows) > 0;
}

export async function deleteSessionOtps(db: Executor, sessionId: string): Promise<void> {
  await db.deleteFrom('mfa_otp_codes').where('session_id_hash', '=', sessionId).execute();
}

export async function deleteAccountOtps(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('mfa_otp_codes').where('uid', '=', uid).execute();
}

/** Every row of the account but the given session's (a password change keeps only the caller's session). */
export async function deleteOtherOtps(db: Executor, uid: string, keep: string | null): Promise<void> {
  let q = db.deleteFrom('mfa_otp_codes').where('uid', '=', uid);
  if (keep) q = q.where('session_id_hash', '!=', keep);
  await q.execute();
}
