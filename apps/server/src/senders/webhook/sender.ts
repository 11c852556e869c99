import type { Kysely } from 'kysely';
import { randomHex } from '@tessera/protocol';
import type { Clock } from '../../clock.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook } from './sign.js';

// One signed, retrying webhook sender (issue 13): support tickets and newsletter changes leave
// through it. A delivery is a row of webhook_deliveries written in the transaction of the change
// it reports (so nothing is sent for a change that rolled back, and nothing is lost for one that
// committed); it is then attempted at once, and after each failure again with doubling waits until
// the receiver answers 2xx. The start-up sweep picks up what a previous process left.

export interface WebhookTarget {
  url: string;
  /** The HMAC-SHA256 key of the signature header. */
  secret: string;
}

/** Runs `fn` after `ms`; returns a cancel function. Tests inject one they drive themselves. */
export type Scheduler = (fn: () => void, ms: number) => () => void;

export const timerScheduler: Scheduler = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export interface WebhookSenderDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** By target name; a target without a URL is not configured (enqueueing to it is an error). */
  targets: Record<string, WebhookTarget | null>;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  scheduler?: Scheduler;
  log: { warn(obj: object, msg: string): void };
}

type DeliveredHandler = (db: Executor, event: string, payload: unknown) => Promise<void>;

export class WebhookSender {
  private readonly scheduler: Scheduler;
  private readonly delivered = new Map<string, DeliveredHandler>();
  private readonly timers = new Set<() => void>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private wake: { at: number; cancel: () => void } | null = null;

  constructor(private readonly deps: WebhookSenderDeps) {
    this.scheduler = deps.scheduler ?? timerScheduler;
  }

  configured(target: string): boolean {
    return Boolean(this.deps.targets[target]?.url);
  }

  /** Called (in a transaction) once a delivery of `target` was accepted: e.g. marks the ticket forwarded. */
  onDelivered(target: string, handler: DeliveredHandler): void {
    this.delivered.set(target, handler);
  }

  /** Writes a delivery on `db` (the caller's transaction); `kick` after commit sends it. */
  async enqueue(db: Executor, target: string, event: string, payload: unknown): Promise<string> {
    if (!this.configured(target)) throw new Error(`webhook target ${target} is not configured`);
    const id = randomHex(16);
    const now = this.deps.clock.now();
    await db.insertInto('webhook_deliveries').values({
      id, target, event, payload: JSON.stringify(payload), next_attempt_at: now, last_error: null, created_at: now,
    }).execute();
    return id;
  }

  /**
   * One attempt at a delivery, if it is due and no other sender holds it: true when the receiver
   * accepted it (the row is gone), false otherwise (the row waits for its next attempt).
   */
  async attempt(id: string): Promise<boolean> {
    const { db, clock } = this.deps;
    const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.next_attempt_at > clock.now()) return false;
    const target = this.deps.targets[row.target];
    if (!target?.url) return false;
    // The lease: whoever moves next_attempt_at first owns this attempt (another instance's sweep
    // finds the row not due). A crash mid-attempt leaves it due again once the lease ends.
    const lease = await db.updateTable('webhook_deliveries')
      .set({ next_attempt_at: clock.now() + this.deps.timeoutMs * 2, attempts: row.attempts + 1 })
      .where('id', '=', id).where('next_attempt_at', '=', row.next_attempt_at).executeTakeFirst();
    if (Number(lease.numUpdatedRows) !== 1) return false;
    const error = await this.post(target, row.id, row.event, row.payload);
    if (error === null) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('webhook_deliveries').where('id', '=', id).execute();
        await this.delivered.get(row.target)?.(trx, row.event, JSON.parse(row.payload));
      });
      return true;
    }
    const wait = Math.min(this.deps.retryMaxMs, this.deps.retryBaseMs * 2 ** Math.min(row.attempts, 30));
    await db.updateTable('webhook_deliveries')
      .set({ next_attempt_at: clock.now() + wait, last_error: error.slice(0, 255) })
      .where('id', '=', id).execute();
    this.deps.log.warn({ target: row.target, delivery: id, attempts: row.attempts + 1, retryInMs: wait, reason: error }, 'webhook delivery failed: retried later');
    this.schedule(wait);
    return false;
  }

  /** Sends a delivery just committed, without making the request wait for it. */
  kick(id: string): void {
    this.track(this.attempt(id).catch((err: Error) => this.deps.log.warn({ delivery: id, reason: err.message }, 'webhook delivery failed')));
  }

  /**
   * Attempts every due delivery of the configured targets (the start-up sweep and each retry timer
   * run it); how many were accepted. Deliveries of a target no longer configured wait in the table
   * until it is configured again.
   */
  async sweep(): Promise<number> {
    if (this.closed) return 0;
    const targets = Object.keys(this.deps.targets).filter((t) => this.configured(t));
    if (!targets.length) return 0;
    const due = await this.deps.db.selectFrom('webhook_deliveries').select('id')
      .where('target', 'in', targets).where('next_attempt_at', '<=', this.deps.clock.now())
      .orderBy('next_attempt_at').limit(100).execute();
    let sent = 0;
    for (const { id } of due) if (await this.attempt(id)) sent += 1;
    // Deliveries that are not due yet still need a timer after a restart.
    const next = await this.deps.db.selectFrom('webhook_deliveries').select('next_attempt_at')
      .where('target', 'in', targets).orderBy('next_attempt_at').limit(1).executeTakeFirst();
    // At least a second: a delivery that stayed due (another instance holds it) is not spun on.
    if (next) this.schedule(Math.max(1000, next.next_attempt_at - this.deps.clock.now()));
    return sent;
  }

  /**
   * The start-up sweep (deliveries a previous process left), then a sweep every `sweepIntervalMs`:
   * what a crash or a missed timer left behind is sent within that.
   */
  start(sweepIntervalMs = 60_000): void {
    const every = () => {
      if (this.closed) return;
      this.track(this.sweep().catch((err: Error) => this.deps.log.warn({ reason: err.message }, 'webhook sweep failed')));
      const cancel = this.scheduler(() => {
        this.timers.delete(cancel);
        every();
      }, sweepIntervalMs);
      this.timers.add(cancel);
    };
    every();
  }

  /** A sweep in a second: for deliveries written in a transaction whose commit the writer cannot see (account deletion). */
  soon(): void {
    this.schedule(1000);
  }

  /** Resolves once the attempts started so far have ended (tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  close(): void {
    this.closed = true;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  /**
   * One wake-up for retries, at the earliest time asked for: a later request leaves it, an earlier
   * one replaces it (so a long outage does not pile up timers).
   */
  private schedule(ms: number): void {
    if (this.closed) return;
    const at = this.deps.clock.now() + ms;
    if (this.wake && this.wake.at <= at) return;
    if (this.wake) {
      this.wake.cancel();
      this.timers.delete(this.wake.cancel);
    }
    const cancel = this.scheduler(() => {
      this.timers.delete(cancel);
      if (this.wake?.cancel === cancel) this.wake = null;
      this.track(this.sweep().catch((err: Error) => this.deps.log.warn({ reason: err.message }, 'webhook sweep failed')));
    }, ms);
    this.timers.add(cancel);
    this.wake = { at, cancel };
  }

  private track(p: Promise<unknown>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /** Null when the receiver answered 2xx, else why not. */
  private async post(target: WebhookTarget, id: string, event: string, body: string): Promise<string | null> {
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signWebhook(target.secret, body, Math.floor(this.deps.clock.now() / 1000)),
          [DELIVERY_HEADER]: id,
          [EVENT_HEADER]: event,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.deps.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}`;
    } catch (err) {
      return (err as Error).message || 'request failed';
    }
  }
}
