import type { Selectable } from 'kysely';
import type { Executor } from '../../storage/executor.js';
import type { RecoveryKeysTable } from './tables.js';

// The recovery_keys table: one row per account at most (uid is the primary key).

export interface RecoveryKey {
  uid: string;
  /** SHA-256 (hex) of the key's fingerprint. */
  idHash: string;
  recoveryData: string;
  hint: string | null;
  enabled: boolean;
  createdAt: number;
  verifiedAt: number | null;
}

function rowToRecoveryKey(row: Selectable<RecoveryKeysTable>): RecoveryKey {
  return {
    uid: row.uid, idHash: row.recovery_key_id_hash, recoveryData: row.recovery_data, hint: row.hint,
    enabled: Number(row.enabled) === 1, createdAt: Number(row.created_at), verifiedAt: row.verified_at === null ? null : Number(row.verified_at),
  };
}

export async function findRecoveryKey(db: Executor, uid: string): Promise<RecoveryKey | null> {
  const row = await db.selectFrom('recovery_keys').selectAll().where('uid', '=', uid).executeTakeFirst();
  return row ? rowToRecoveryKey(row) : null;
}

/** Stores the account's key; the caller deletes any earlier one first (an account has one, uid is the primary key). */
export async function insertRecoveryKey(db: Executor, key: RecoveryKey): Promise<void> {
  await db.insertInto('recovery_keys').values({
    uid: key.uid, recovery_key_id_hash: key.idHash, recovery_data: key.recoveryData, hint: key.hint,
    enabled: key.enabled ? 1 : 0, created_at: key.createdAt, verified_at: key.verifiedAt,
  }).execute();
}

/** Enables the key with this fingerprint hash; false when the account's key is another (or gone). */
export async function enableRecoveryKey(db: Executor, uid: string, idHash: string, now: number): Promise<boolean> {
  const done = await db.updateTable('recovery_keys').set({ enabled: 1, verified_at: now })
    .where('uid', '=', uid).where('recovery_key_id_hash', '=', idHash).executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

export async function setRecoveryKeyHint(db: Executor, uid: string, hint: string): Promise<boolean> {
  const done = await db.updateTable('recovery_keys').set({ hint }).where('uid', '=', uid).where('enabled', '=', 1).executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/**
 * Deletes the account's key; with `idHash`, only if it is that key. The count says whether this
 * call deleted it: of two requests racing to spend one key, exactly one sees true.
 */
export async function deleteRecoveryKey(db: Executor, uid: string, idHash?: string): Promise<boolean> {
  let query = db.deleteFrom('recovery_keys').where('uid', '=', uid);
  if (idHash !== undefined) query = query.where('recovery_key_id_hash', '=', idHash);
  const done = await query.executeTakeFirst();
  return Number(done.numDeletedRows) > 0;
}
