import { PostgresAdapter } from 'kysely';
import type { Executor } from '../../storage/executor.js';

// The device_commands table (migration 0009).

export interface DeviceCommand {
  index: number;
  command: string;
  payload: Record<string, unknown>;
  sender: string | null;
}

/** Stores a command; its index. */
export async function insertCommand(db: Executor, c: { uid: string; deviceId: string; command: string; payload: string; sender: string | null; createdAt: number; expiresAt: number }): Promise<number> {
  const insert = db.insertInto('device_commands').values({
    uid: c.uid, device_id: c.deviceId, command: c.command, payload: c.payload, sender: c.sender, created_at: c.createdAt, expires_at: c.expiresAt,
  });
  // PostgreSQL reports no insert id: it returns the new row's. SQLite and MySQL report it.
  if (db.getExecutor().adapter instanceof PostgresAdapter) return Number((await insert.returning('idx').executeTakeFirstOrThrow()).idx);
  return Number((await insert.executeTakeFirstOrThrow()).insertId);
}

/** Up to `limit` + 1 live commands of the device from index `from` on, oldest first. */
export async function listCommands(db: Executor, uid: string, deviceId: string, from: number, now: number, limit: number): Promise<DeviceCommand[]> {
  const rows = await db.selectFrom('device_commands').select(['idx', 'command', 'payload', 'sender'])
    .where('uid', '=', uid).where('device_id', '=', deviceId).where('idx', '>=', from).where('expires_at', '>', now)
    .orderBy('idx', 'asc').limit(limit + 1).execute();
  return rows.map((r) => ({ index: Number(r.idx), command: r.command, payload: JSON.parse(r.payload) as Record<string, unknown>, sender: r.sender }));
}

/** Deletes the device's expired commands. */
export async function deleteExpiredCommands(db: Executor, uid: string, deviceId: string, now: number): Promise<void> {
  await db.deleteFrom('device_commands').where('uid', '=', uid).where('device_id', '=', deviceId).where('expires_at', '<=', now).execute();
}

/** How many live commands wait for the device, and when the first of them expires (null: none). */
export async function pendingCommands(db: Executor, uid: string, deviceId: string, now: number): Promise<{ count: number; firstExpiry: number | null }> {
  const row = await db.selectFrom('device_commands')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('expires_at').as('first')])
    .where('uid', '=', uid).where('device_id', '=', deviceId).where('expires_at', '>', now)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), firstExpiry: row?.first === null || row?.first === undefined ? null : Number(row.first) };
}
