import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { JobQueue, JobRunner, type Job, type Scheduler } from '../../jobs/index.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook } from './sign.js';

// One signed, retrying webhook sender (issue 13): support tickets and newsletter changes leave
// through it. A delivery is a job of the server's job queue (jobs/, kind `webhook.<target>`)
// written in the transaction of the change it reports, so nothing is sent for a change that
// rolled back and nothing is lost for one that committed; it is attempted at once, then after each
// failure again with doubling waits until the receiver answers 2xx or the queue's last attempt
// (JOBS_MAX_ATTEMPTS) leaves it dead. The job id is the delivery id: the same on every retry.

export interface WebhookTarget {
  url: string;
  /** The HMAC-SHA256 key of the signature header. */
  secret: string;
}

export interface WebhookSenderDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** By target name; a target without a URL is not configured (enqueueing to it is an error). Domains add theirs with `target()`. */
  targets?: Record<string, WebhookTarget | null>;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** The server's job queue; without one the sender runs a queue of its own (with `scheduler`). */
  jobs?: JobQueue;
  scheduler?: Scheduler;
  log: { warn(obj: object, msg: string): void };
}

type DeliveredHandler = (db: Executor, event: string, payload: unknown) => Promise<void>;

/** A delivery as its job carries it: the event and the body, sent as JSON exactly as signed. */
interface Delivery {
  event: string;
  body: unknown;
}

/** The job kind of a target's deliveries. */
export const webhookKind = (target: string): string => `webhook.${target}`;

export class WebhookSender {
  readonly jobs: JobQueue;
  private readonly delivered = new Map<string, DeliveredHandler>();
  private readonly targets: Record<string, WebhookTarget | null> = {};

  constructor(private readonly deps: WebhookSenderDeps) {
    this.jobs = deps.jobs ?? new JobQueue(deps.clock, new JobRunner({ db: deps.db, clock: deps.clock, log: deps.log, ...(deps.scheduler ? { scheduler: deps.scheduler } : {}) }));
    for (const [name, target] of Object.entries(deps.targets ?? {})) this.target(name, target);
  }

  /**
   * Declares a target (a domain does, from its own settings: support, newsletters). Only configured
   * targets are run here: deliveries of one no longer configured wait in the table (not spun on)
   * until it is configured again.
   */
  target(name: string, target: WebhookTarget | null): void {
    if (name in this.targets) throw new Error(`webhook target ${name} is declared twice`);
    this.targets[name] = target;
    if (!target?.url) return;
    this.jobs.runner.register<Delivery>(webhookKind(name), {
      run: (job) => this.post(target, job),
      done: async (trx, job) => this.delivered.get(name)?.(trx, job.payload.event, job.payload.body),
      // The waits of WEBHOOK_RETRY_*; an attempt holds its delivery for twice its timeout.
      retry: { baseMs: this.deps.retryBaseMs, maxMs: this.deps.retryMaxMs, leaseMs: this.deps.timeoutMs * 2 },
    });
  }

  configured(target: string): boolean {
    return Boolean(this.targets[target]?.url);
  }

  /** Called (in a transaction) once a delivery of `target` was accepted: e.g. marks the ticket forwarded. */
  onDelivered(target: string, handler: DeliveredHandler): void {
    this.delivered.set(target, handler);
  }

  /**
   * Writes a delivery on `db` (the caller's transaction). By default the caller sends it after the
   * commit (`kick`, or `attempt` to learn the outcome); `start: 'commit'` has the job queue send it
   * once the transaction commits, for a caller that cannot see the commit (a lifecycle hook).
   */
  async enqueue(db: Executor, target: string, event: string, payload: unknown, options: { start?: 'commit' | 'caller' } = {}): Promise<string> {
    if (!this.configured(target)) throw new Error(`webhook target ${target} is not configured`);
    return this.jobs.enqueue(db, webhookKind(target), { event, body: payload } satisfies Delivery, { start: options.start ?? 'caller' });
  }

  /**
   * One attempt at a delivery, if it is due and no other sender holds it: true when the receiver
   * accepted it (its job is gone), false otherwise (the job waits for its next attempt).
   */
  async attempt(id: string): Promise<boolean> {
    return (await this.jobs.runner.runOne(id)) === 'done';
  }

  /** Sends a delivery just committed, without making the request wait for it. */
  kick(id: string): void {
    this.jobs.runner.kick(id);
  }

  /** Attempts every due job the queue runs here (deliveries among them); how many were done. */
  sweep(): Promise<number> {
    return this.jobs.runner.sweep();
  }

  /** Starts the queue's runner (its start-up sweep, then one every `sweepIntervalMs`). */
  start(sweepIntervalMs?: number): void {
    this.jobs.runner.start(sweepIntervalMs);
  }

  /** Resolves once the attempts started so far have ended (tests). */
  idle(): Promise<void> {
    return this.jobs.runner.idle();
  }

  close(): void {
    this.jobs.runner.close();
  }

  /** Resolves when the receiver answered 2xx; throws why not otherwise (the queue retries). */
  private async post(target: WebhookTarget, job: Job<Delivery>): Promise<void> {
    const body = JSON.stringify(job.payload.body);
    let status: number;
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signWebhook(target.secret, body, Math.floor(this.deps.clock.now() / 1000)),
          [DELIVERY_HEADER]: job.id,
          [EVENT_HEADER]: job.payload.event,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.deps.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      status = res.status;
    } catch (err) {
      throw new Error((err as Error).message || 'request failed');
    }
    if (status < 200 || status >= 300) throw new Error(`HTTP ${status}`);
  }
}
