import type { Selectable } from 'kysely';
import type { Executor } from '../../storage/executor.js';
import type { TotpTable } from './tables.js';

// The totp and recovery_codes tables (migration 0010).

export interface TotpRow {
  uid: string;
  sealedSecret: string;
  pendingSealedSecret: string | null;
  verified: boolean;
  enabled: boolean;
  lastStep: number | null;
  createdAt: number;
  enabledAt: number | null;
}

function rowToTotp(r: Selectable<TotpTable>): TotpRow {
  return {
    uid: r.uid, sealedSecret: r.sealed_secret, pendingSealedSecret: r.pending_sealed_secret,
    verified: Number(r.verified) === 1, enabled: Number(r.enabled) === 1,
    lastStep: r.last_step === null ? null : Number(r.last_step), createdAt: Number(r.created_at),
    enabledAt: r.enabled_at === null ? null : Number(r.enabled_at),
  };
}

export async function findTotp(db: Executor, uid: string): Promise<TotpRow | null> {
  const row = await db.selectFrom('totp').selectAll().where('uid', '=', uid).executeTakeFirst();
  return row ? rowToTotp(row) : null;
}

export async function isTotpEnabled(db: Executor, uid: string): Promise<boolean> {
  const row = await db.selectFrom('totp').select('uid').where('uid', '=', uid).where('enabled', '=', 1).executeTakeFirst();
  return row !== undefined;
}

export async function insertTotp(db: Executor, uid: string, sealedSecret: string, now: number): Promise<void> {
  await db.insertInto('totp').values({
    uid, sealed_secret: sealedSecret, pending_sealed_secret: null, verified: 0, enabled: 0, last_step: null, created_at: now, enabled_at: null,
  }).execute();
}

export async function deleteTotp(db: Executor, uid: string): Promise<boolean> {
  const done = await db.deleteFrom('totp').where('uid', '=', uid).executeTakeFirst();
  return Number(done.numDeletedRows) > 0;
}

/**
 * Records that a code of `step` was accepted: only if no code of this step or a later one was,
 * so of two requests racing with one code exactly one succeeds (the other sees false).
 */
export async function spendStep(db: Executor, uid: string, step: number, changes: { verified?: 1 } = {}): Promise<boolean> {
  const done = await db.updateTable('totp').set({ last_step: step, ...changes })
    .where('uid', '=', uid)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Turns two-step on for a set-up (verified) row; false when there is none or it is already on. */
export async function enableTotp(db: Executor, uid: string, now: number): Promise<boolean> {
  const done = await db.updateTable('totp').set({ enabled: 1, enabled_at: now })
    .where('uid', '=', uid).where('verified', '=', 1).where('enabled', '=', 0).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export async function setPendingSecret(db: Executor, uid: string, sealed: string | null): Promise<boolean> {
  const done = await db.updateTable('totp').set({ pending_sealed_secret: sealed }).where('uid', '=', uid).where('enabled', '=', 1).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Makes the pending secret the account's (only if it is still the one checked). */
export async function swapInPendingSecret(db: Executor, uid: string, pending: string, newSealed: string, step: number): Promise<boolean> {
  const done = await db.updateTable('totp').set({ sealed_secret: newSealed, pending_sealed_secret: null, last_step: step })
    .where('uid', '=', uid).where('pending_sealed_secret', '=', pending).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

// ---- backup codes

export async function countRecoveryCodes(db: Executor, uid: string): Promise<number> {
  const row = await db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll<number | string>().as('n')).where('uid', '=', uid).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function replaceRecoveryCodes(db: Executor, uid: string, hashes: string[], now: number): Promise<void> {
  await db.deleteFrom('recovery_codes').where('uid', '=', uid).execute();
  if (hashes.length) await db.insertInto('recovery_codes').values(hashes.map((h) => ({ uid, code_hash: h, created_at: now }))).execute();
}

/** Spends one code: true when this call deleted it (of two racing uses, one wins). */
export async function spendRecoveryCode(db: Executor, uid: string, hash: string): Promise<boolean> {
  const done = await db.deleteFrom('recovery_codes').where('uid', '=', uid).where('code_hash', '=', hash).executeTakeFirst();
  return Number(done.numDeletedRows) === 1;
}

export async function deleteRecoveryCodes(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('uid', '=', uid).execute();
}
