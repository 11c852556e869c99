import { normalizeEmail } from '../accounts/store.js';
import type { Executor } from '../tokens/store.js';
import type { BounceLog } from '../../senders/mail/mailer.js';

/** Bounces and complaints, newest first per address. */
export function bounceLog(db: Executor): BounceLog {
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
  };
}
