import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { WebhookSender } from '../../senders/webhook/index.js';
import type { Executor } from '../../storage/executor.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Database } from '../../storage/schema.js';
import { deleteNewslettersOf, listNewsletters, lockNewsletters, writeNewsletters } from './store.js';

// The account's newsletter choices. Each change is written with a webhook delivery in one
// transaction (the transactional outbox of senders/webhook) and sent after it commits; so is the
// notice that an account with choices was deleted: nothing is sent for a deletion that rolled back.

/** Spec 2 §3's newsletters, `{product}` being `tessera`. */
export const NEWSLETTERS = [
  'firefox-accounts-journey', 'knowledge-is-power', 'tessera-foundation', 'take-action-for-the-internet', 'test-pilot',
  'tessera-and-you', 'security-privacy-news', 'tessera-accounts', 'hubs', 'mdnplus',
] as const;
export type Newsletter = (typeof NEWSLETTERS)[number];

export const NEWSLETTERS_TARGET = 'newsletters';

/**
 * MySQL's answer to two first choices of one account at once: each one's locking update of the
 * missing row takes a gap lock, and their inserts then wait on each other; InnoDB rolls one back
 * whole, which may run again. (PostgreSQL's code for it too.)
 */
function isDeadlock(err: unknown): boolean {
  const e = err as { code?: string; errno?: number } | null;
  return Boolean(e && (e.code === 'ER_LOCK_DEADLOCK' || e.errno === 1213 || e.code === '40P01'));
}

export interface NewslettersDeps {
  db: Kysely<Database>;
  clock: Clock;
  webhooks: WebhookSender;
}

export class NewslettersService {
  constructor(private readonly deps: NewslettersDeps) {}

  list(uid: string): Promise<string[]> {
    return listNewsletters(this.deps.db, uid);
  }

  /**
   * Sets the account's choices to exactly `newsletters`; the webhook hears of the change.
   * Concurrent changes of one account: each locks the account's row before reading it, so they
   * apply one after the other and the last wins whole (with a true added/removed). Two first
   * choices race on the insert: the loser meets a unique violation and runs again on the row.
   */
  async set(uid: string, email: string, newsletters: Newsletter[]): Promise<string[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.setOnce(uid, email, newsletters);
      } catch (err) {
        if (attempt >= 5 || !(isUniqueViolation(err) || isDeadlock(err))) throw err;
      }
    }
  }

  private async setOnce(uid: string, email: string, newsletters: Newsletter[]): Promise<string[]> {
    const { db, clock, webhooks } = this.deps;
    const chosen = [...new Set(newsletters)].sort();
    const delivery = await db.transaction().execute(async (trx) => {
      const exists = await lockNewsletters(trx, uid, clock.now());
      const before = exists ? await listNewsletters(trx, uid) : [];
      await writeNewsletters(trx, uid, chosen, exists, clock.now());
      if (!webhooks.configured(NEWSLETTERS_TARGET)) return null;
      const added = chosen.filter((n) => !before.includes(n));
      const removed = before.filter((n) => !(chosen as string[]).includes(n));
      if (!added.length && !removed.length) return null;
      return webhooks.enqueue(trx, NEWSLETTERS_TARGET, 'newsletters.updated', { uid, email, newsletters: chosen, added, removed, at: clock.now() });
    });
    if (delivery) webhooks.kick(delivery);
    return chosen;
  }

  /**
   * Account deletion (inside its transaction): the rows go, and when there were any the webhook is
   * told to forget the subscriber. The delivery (a job) commits or rolls back with the deletion (a
   * rolled-back deletion sends nothing); the job queue sends it once the deletion has committed.
   */
  readonly accountDeleted = async (trx: Executor, uid: string): Promise<void> => {
    const had = await deleteNewslettersOf(trx, uid);
    if (had && this.deps.webhooks.configured(NEWSLETTERS_TARGET)) {
      await this.deps.webhooks.enqueue(trx, NEWSLETTERS_TARGET, 'account.deleted', { uid, at: this.deps.clock.now() }, { start: 'commit' });
    }
  };
}
