import { normalizeEmail } from '../../email-address.js';
import type { BounceLog } from '../../senders/mail/mailer.js';
import type { Executor } from '../../storage/executor.js';

export interface BounceEntry {
  type: string;
  detail: string | null;
  createdAt: number;
}

/** Bounces and complaints, newest first per address; list and clear are for operators. */
export function bounceLog(db: Executor): BounceLog & {
  list(email: string): Promise<BounceEntry[]>;
  clear(email: string): Promise<number>;
} {
  return {
    async latest(email) {
      const row = await db
        .selectFrom('email_bounces')
        .select(['bounce_type', 'created_at'])
        .where('normalized_email', '=', normalizeEmail(email))
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? { type: row.bounce_type as 'hard' | 'soft' | 'complaint', createdAt: row.created_at } : null;
    },
    async record(email, type, detail, now) {
      await db.insertInto('email_bounces').values({ normalized_email: normalizeEmail(email), bounce_type: type, detail, created_at: now }).execute();
    },
    async list(email) {
      const rows = await db.selectFrom('email_bounces').selectAll().where('normalized_email', '=', normalizeEmail(email)).orderBy('created_at').execute();
      return rows.map((r) => ({ type: r.bounce_type, detail: r.detail, createdAt: r.created_at }));
    },
    async clear(email) {
      const r = await db.deleteFrom('email_bounces').where('normalized_email', '=', normalizeEmail(email)).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
