import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { appError } from '@tessera/errors';
import { randomHex } from '@tessera/protocol';
import type { Clock } from '../../clock.js';
import type { WebhookSender } from '../../senders/webhook/index.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { deleteTicketsOf, insertTicket, markForwarded } from './store.js';

// Support tickets: stored, then forwarded to the helpdesk webhook. The ticket row and its delivery
// are written in one transaction; the first attempt runs before the reply, later ones from the
// sender's retry timer (and its sweep at start) until the helpdesk accepts the ticket.

export const TICKET_FIELDS = ['productName', 'productPlatform', 'productVersion', 'topic', 'app', 'subject', 'message', 'product', 'category'] as const;
export type TicketFields = { productName: string; topic: string; message: string } & Partial<Record<(typeof TICKET_FIELDS)[number], string>>;

/** Who files the ticket: an account's confirmed session, or the helpdesk front end holding SUPPORT_SECRET. */
export type Filer = { kind: 'session'; uid: string; email: string } | { kind: 'helpdesk' };

export const SUPPORT_TARGET = 'support';
export const TICKET_EVENT = 'support.ticket';

export interface SupportDeps {
  db: Kysely<Database>;
  clock: Clock;
  webhooks: WebhookSender;
  /** SUPPORT_SECRET; empty: the header is never accepted. */
  secret: string;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export class SupportService {
  constructor(private readonly deps: SupportDeps) {
    deps.webhooks.onDelivered(SUPPORT_TARGET, async (db, _event, payload) => {
      await markForwarded(db, (payload as { ticket: string }).ticket, this.deps.clock.now());
    });
  }

  /** Whether `presented` is the support secret: compared in constant time (as digests, so lengths do not show). */
  secretMatches(presented: string | undefined): boolean {
    if (!this.deps.secret || !presented) return false;
    return timingSafeEqual(digest(presented), digest(this.deps.secret));
  }

  async file(filer: Filer, body: TicketFields & { email?: string }): Promise<{ success: boolean; ticket: string; error: string | null }> {
    const { db, clock, webhooks } = this.deps;
    if (!webhooks.configured(SUPPORT_TARGET)) throw appError('FEATURE_NOT_ENABLED', {}, 'Support tickets are not enabled on this server (SUPPORT_WEBHOOK_URL)');
    // A session files for its own account (its primary address, whatever the body says); the
    // helpdesk front end names the address the customer gave it.
    const email = filer.kind === 'session' ? filer.email : body.email;
    if (!email) throw appError('MISSING_PARAMETER', { param: 'email' }, 'Missing parameter in request body: email (required with the support secret)');
    const fields: Record<string, string> = {};
    for (const key of TICKET_FIELDS) if (body[key] !== undefined) fields[key] = body[key]!;
    const id = randomHex(16);
    const now = clock.now();
    const uid = filer.kind === 'session' ? filer.uid : null;
    const delivery = await db.transaction().execute(async (trx) => {
      await insertTicket(trx, { id, uid, email, fields, createdAt: now });
      return webhooks.enqueue(trx, SUPPORT_TARGET, TICKET_EVENT, { ticket: id, uid, email, createdAt: now, via: filer.kind, ...fields });
    });
    const forwarded = await webhooks.attempt(delivery);
    return forwarded
      ? { success: true, ticket: id, error: null }
      : { success: false, ticket: id, error: 'The helpdesk did not accept the ticket yet: it is kept and forwarded again later.' };
  }

  readonly accountDeleted = (trx: Executor, uid: string): Promise<void> => deleteTicketsOf(trx, uid);
}
