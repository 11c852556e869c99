import type { Selectable } from 'kysely';
import type { Executor } from '../../storage/executor.js';
import type { DevicesTable } from './tables.js';

// The devices table (migration 0008): one row per registered device, bound to one session.

export interface Device {
  uid: string;
  id: string;
  /** The handle of the session it is registered on. */
  sessionId: string | null;
  name: string | null;
  type: string | null;
  createdAt: number;
  pushCallback: string | null;
  pushPublicKey: string | null;
  pushAuthKey: string | null;
  pushEndpointExpired: boolean;
  availableCommands: Record<string, string>;
}

function rowToDevice(r: Selectable<DevicesTable>): Device {
  return {
    uid: r.uid,
    id: r.id,
    sessionId: r.session_id_hash,
    name: r.name,
    type: r.type,
    createdAt: r.created_at,
    pushCallback: r.push_callback,
    pushPublicKey: r.push_public_key,
    pushAuthKey: r.push_auth_key,
    pushEndpointExpired: r.push_endpoint_expired === 1,
    availableCommands: r.available_commands === null ? {} : (JSON.parse(r.available_commands) as Record<string, string>),
  };
}

export async function insertDevice(db: Executor, d: Device): Promise<void> {
  await db.insertInto('devices').values({
    uid: d.uid,
    id: d.id,
    session_id_hash: d.sessionId,
    name: d.name,
    type: d.type,
    created_at: d.createdAt,
    push_callback: d.pushCallback,
    push_public_key: d.pushPublicKey,
    push_auth_key: d.pushAuthKey,
    push_endpoint_expired: d.pushEndpointExpired ? 1 : 0,
    available_commands: JSON.stringify(d.availableCommands),
  }).execute();
}

/** Writes every field but the keys (uid, id, session) and createdAt. */
export async function updateDevice(db: Executor, d: Device): Promise<void> {
  await db.updateTable('devices').set({
    name: d.name,
    type: d.type,
    push_callback: d.pushCallback,
    push_public_key: d.pushPublicKey,
    push_auth_key: d.pushAuthKey,
    push_endpoint_expired: d.pushEndpointExpired ? 1 : 0,
    available_commands: JSON.stringify(d.availableCommands),
  }).where('uid', '=', d.uid).where('id', '=', d.id).execute();
}

/**
 * Locks the device's row until the transaction ends (an UPDATE that changes nothing, which every
 * dialect locks: SQLite's single writer, a row lock in PostgreSQL and MySQL), so that what is
 * counted for the device under it stays true until the transaction writes.
 */
export async function lockDevice(db: Executor, uid: string, id: string): Promise<void> {
  await db.updateTable('devices').set((eb) => ({ name: eb.ref('name') })).where('uid', '=', uid).where('id', '=', id).execute();
}

export async function findDevice(db: Executor, uid: string, id: string): Promise<Device | null> {
  const row = await db.selectFrom('devices').selectAll().where('uid', '=', uid).where('id', '=', id).executeTakeFirst();
  return row ? rowToDevice(row) : null;
}

export async function findDeviceOfSession(db: Executor, sessionId: string): Promise<Device | null> {
  const row = await db.selectFrom('devices').selectAll().where('session_id_hash', '=', sessionId).executeTakeFirst();
  return row ? rowToDevice(row) : null;
}

export async function listDevices(db: Executor, uid: string): Promise<Device[]> {
  const rows = await db.selectFrom('devices').selectAll().where('uid', '=', uid).orderBy('created_at', 'asc').execute();
  return rows.map(rowToDevice);
}

export async function deleteDevice(db: Executor, uid: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('devices').where('uid', '=', uid).where('id', '=', id).executeTakeFirst();
  await db.deleteFrom('device_commands').where('uid', '=', uid).where('device_id', '=', id).execute();
  return Number(r.numDeletedRows) === 1;
}

export async function deleteDeviceOfSession(db: Executor, sessionId: string): Promise<void> {
  const device = await db.selectFrom('devices').select(['uid', 'id']).where('session_id_hash', '=', sessionId).executeTakeFirst();
  if (device) await deleteDevice(db, device.uid, device.id);
}

/** Deletes the account's devices but the one on session `keepSessionId` (password change, reset, deletion). */
export async function deleteOtherDevices(db: Executor, uid: string, keepSessionId: string | null): Promise<void> {
  let q = db.deleteFrom('devices').where('uid', '=', uid);
  if (keepSessionId) q = q.where((eb) => eb.or([eb('session_id_hash', '!=', keepSessionId), eb('session_id_hash', 'is', null)]));
  await q.execute();
  // Their commands go too.
  await db.deleteFrom('device_commands').where('uid', '=', uid)
    .where('device_id', 'not in', (eb) => eb.selectFrom('devices').select('id').where('uid', '=', uid))
    .execute();
}

/** Moves the device of session `from` to session `to` (a password change replaced the session); false when it had none. */
export async function moveDevice(db: Executor, uid: string, from: string, to: string): Promise<boolean> {
  const r = await db.updateTable('devices').set({ session_id_hash: to }).where('uid', '=', uid).where('session_id_hash', '=', from).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The push service said the endpoint is gone: flagged, unless the device has registered another meanwhile. */
export async function markPushEndpointExpired(db: Executor, uid: string, id: string, endpoint: string): Promise<void> {
  await db.updateTable('devices').set({ push_endpoint_expired: 1 }).where('uid', '=', uid).where('id', '=', id).where('push_callback', '=', endpoint).execute();
}
