import type { Executor } from '../../storage/executor.js';

// The support_tickets table (migration 0016).

export interface TicketRow {
  id: string;
  uid: string | null;
  email: string | null;
  fields: Record<string, string>;
  status: 'pending' | 'forwarded';
  createdAt: number;
  forwardedAt: number | null;
}

export async function insertTicket(db: Executor, t: Omit<TicketRow, 'status' | 'forwardedAt'>): Promise<void> {
  await db.insertInto('support_tickets').values({
    id: t.id, uid: t.uid, email: t.email, fields: JSON.stringify(t.fields), status: 'pending', created_at: t.createdAt, forwarded_at: null,
  }).execute();
}

export async function markForwarded(db: Executor, id: string, at: number): Promise<void> {
  await db.updateTable('support_tickets').set({ status: 'forwarded', forwarded_at: at }).where('id', '=', id).where('status', '=', 'pending').execute();
}

export async function findTicket(db: Executor, id: string): Promise<TicketRow | null> {
  const r = await db.selectFrom('support_tickets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id, uid: r.uid, email: r.email, fields: JSON.parse(r.fields) as Record<string, string>,
    status: r.status as TicketRow['status'], createdAt: r.created_at, forwardedAt: r.forwarded_at,
  };
}

export async function deleteTicketsOf(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('support_tickets').where('uid', '=', uid).execute();
}
