import { createHmac } from 'node:crypto';
import { constantTimeStringEqual } from '@tessera/protocol';
import { randomDigits } from '../../crypto/random.js';
import type { Executor } from '../../storage/executor.js';

// The 6-digit codes that confirm a session (sign-up or sign-in), kept on the session row as an
// HMAC keyed by the server secret and the session's handle: a leaked database does not reveal
// them, and a code is only ever good for the session it was sent for.

export function codeHash(secret: string, sessionId: string, code: string): string {
  return createHmac('sha256', secret).update(`session-code:${sessionId}:${code}`).digest('hex');
}

/** Issues a fresh code for the session, replacing any earlier one. */
export async function issueSessionCode(
  db: Executor, secret: string, sessionId: string, now: number, lifetimeMs: number, tries: number,
): Promise<string> {
  const code = randomDigits(6);
  await db.updateTable('session_tokens')
    .set({ code_hash: codeHash(secret, sessionId, code), code_expires_at: now + lifetimeMs, code_tries: tries })
    .where('id_hash', '=', sessionId)
    .execute();
  return code;
}

/** `spent`: the session saw its last allowed wrong code (across resends) and has been deleted. */
export type CodeCheck = 'ok' | 'wrong' | 'expired' | 'none' | 'spent';

/**
 * Checks a code. The stored hash is read first, then one try is spent atomically against that
 * same hash, so parallel guesses can never share a try; the last wrong try voids the code.
 */
export async function checkSessionCode(
  db: Executor, secret: string, sessionId: string, code: string, now: number, maxFailures: number,
): Promise<CodeCheck> {
  const row = await db.selectFrom('session_tokens').select(['code_hash', 'code_expires_at', 'code_tries']).where('id_hash', '=', sessionId).executeTakeFirst();
  if (!row?.code_hash || row.code_expires_at === null || !row.code_tries) return 'none';
  if (row.code_expires_at <= now) return 'expired';
  const spent = await db.updateTable('session_tokens')
    .set((eb) => ({ code_tries: eb('code_tries', '-', 1) }))
    .where('id_hash', '=', sessionId)
    .where('code_hash', '=', row.code_hash)
    .where('code_tries', '>', 0)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) === 0) return 'none';
  if (constantTimeStringEqual(row.code_hash, codeHash(secret, sessionId, code))) return 'ok';
  // Every wrong code counts against the session for good: a resend voids the code, not the count.
  // One atomic step: counted while under the limit; the wrong code that would reach it ends the session.
  const counted = await db.updateTable('session_tokens')
    .set((eb) => ({ code_failures: eb('code_failures', '+', 1) }))
    .where('id_hash', '=', sessionId).where('code_failures', '<', maxFailures - 1)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) === 0) {
    await db.deleteFrom('session_tokens').where('id_hash', '=', sessionId).execute();
    return 'spent';
  }
  await db.updateTable('session_tokens')
    .set({ code_hash: null, code_expires_at: null, code_tries: null })
    .where('id_hash', '=', sessionId).where('code_hash', '=', row.code_hash).where('code_tries', '<=', 0)
    .execute();
  return 'wrong';
}

export async function clearSessionCode(db: Executor, sessionId: string): Promise<void> {
  await db.updateTable('session_tokens').set({ code_hash: null, code_expires_at: null, code_tries: null }).where('id_hash', '=', sessionId).execute();
}
