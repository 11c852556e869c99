import type { Executor } from '../../storage/executor.js';

// The security_events table (migration 0006): one row per event, newest listed first.

export interface StoredEvent {
  name: string;
  verified: boolean;
  createdAt: number;
  ipNetwork: string | null;
  additionalInfo: Record<string, string> | null;
  /** Where the request came from (migration 0016), null when unknown. */
  location: Record<string, string> | null;
}

export async function insertEvent(db: Executor, row: { uid: string } & StoredEvent): Promise<void> {
  await db.insertInto('security_events').values({
    uid: row.uid,
    name: row.name,
    verified: row.verified ? 1 : 0,
    created_at: row.createdAt,
    ip_network: row.ipNetwork,
    additional_info: row.additionalInfo ? JSON.stringify(row.additionalInfo) : null,
    location: row.location ? JSON.stringify(row.location) : null,
  }).execute();
}

/**
 * Keeps the newest `keep` events of one name for the account. The boundary is read first: below
 * the cap (the usual case) nothing is deleted and nothing is locked.
 */
export async function pruneEventsOfName(db: Executor, uid: string, name: string, keep: number): Promise<void> {
  const edge = await db.selectFrom('security_events').select('id')
    .where('uid', '=', uid).where('name', '=', name)
    .orderBy('id', 'desc').limit(1).offset(keep)
    .executeTakeFirst();
  if (!edge) return;
  await db.deleteFrom('security_events').where('uid', '=', uid).where('name', '=', name).where('id', '<=', edge.id).execute();
}

/** The account's events since `since` (ms), newest first; ties in time by the order they were recorded. */
export async function listEvents(db: Executor, uid: string, since: number): Promise<StoredEvent[]> {
  const rows = await db.selectFrom('security_events')
    .select(['name', 'verified', 'created_at', 'ip_network', 'additional_info', 'location'])
    .where('uid', '=', uid).where('created_at', '>=', since)
    .orderBy('created_at', 'desc').orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    verified: r.verified === 1,
    createdAt: r.created_at,
    ipNetwork: r.ip_network,
    additionalInfo: r.additional_info === null ? null : (JSON.parse(r.additional_info) as Record<string, string>),
    location: r.location ? (JSON.parse(r.location) as Record<string, string>) : null,
  }));
}

export async function deleteEventsOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('security_events').where('uid', '=', uid).execute();
}

/** Deletes every event recorded before `cutoff` (ms), of every account; how many. */
export async function deleteEventsBefore(db: Executor, cutoff: number): Promise<number> {
  const r = await db.deleteFrom('security_events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
