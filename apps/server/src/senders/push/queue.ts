import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import webpush from 'web-push';
import type { Clock } from '../../clock.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Executor } from '../../storage/executor.js';
import type { VapidKeys } from './vapid.js';

// Web Push out of the request path: a request enqueues its pushes and goes on; a bounded number of
// workers send them, each encrypted (aes128gcm, RFC 8291) to its subscription's keys and signed with
// the server's VAPID key (RFC 8292). A full queue drops new pushes rather than grow or block.
// A push the push service failed to take (429, 5xx, no answer) is retried through the job queue
// once `retryOn` is called, until it is taken or its TTL has passed: RFC 8030 push services keep
// a push for its TTL once they have it, so reaching the push service is all there is to retry.

export interface PushSubscription {
  endpoint: string;
  /** P-256 public key, base64url (p256dh). */
  publicKey: string;
  /** 16-byte auth secret, base64url. */
  authKey: string;
}

export interface PushJob {
  subscription: PushSubscription;
  /** Sent as JSON; null, or a subscription without keys, sends a push without payload. */
  payload: Record<string, unknown> | null;
  /** How long the push service keeps it for an offline device (seconds, RFC 8030 §5.2). */
  ttlSeconds: number;
  /** The push service said the endpoint is gone (404 or 410). */
  onGone: () => Promise<void>;
}

export interface PushQueueOptions {
  vapid: VapidKeys;
  subject: string;
  /** Extra trusted certificates (PUSH_CA_FILE), PEM; null: the system's only. */
  ca: string | null;
  maxQueued: number;
  concurrency: number;
  timeoutMs: number;
  log: { warn(obj: object, msg: string): void };
}

/** A push kept for a retry (the job's payload): it may carry the subscription's keys and a code, and lives at most its TTL. */
interface PushRetry {
  subscription: PushSubscription;
  payload: Record<string, unknown> | null;
  /** When the push's TTL ends (ms): a retry after it is pointless, the push is dropped. */
  expiresAt: number;
}

export const PUSH_RETRY_KIND = 'push.retry';

/** What one attempt came to: taken, the endpoint gone for good, worth a retry, or not. */
type Outcome = { result: 'sent' } | { result: 'gone' } | { result: 'retry' | 'failed'; status: number | null; reason: string };

/** RFC 8030 §6 and §7: too many requests, the push service failing, or no answer at all. */
const retryable = (status: number | undefined) => status === undefined || status === 429 || status >= 500;

/** A push service's host, for logs: the endpoint's path is a capability and is never logged. */
const hostOf = (endpoint: string) => {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid';
  }
};

export class PushQueue {
  private readonly waiting: PushJob[] = [];
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  private readonly agent: Agent;
  /** Pushes dropped because the queue was full, since start. */
  dropped = 0;
  private retries: { jobs: JobQueue; db: Executor; clock: Clock } | null = null;

  constructor(private readonly options: PushQueueOptions) {
    // `ca` replaces the trusted list: extra certificates are added to Node's own, not instead of them.
    this.agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, ...(options.ca ? { ca: [...rootCertificates, options.ca] } : {}) });
  }

  /** Queues a push; false when the queue is full or closed (the push is dropped and logged). */
  enqueue(job: PushJob): boolean {
    if (this.closed || this.waiting.length >= this.options.maxQueued) {
      this.dropped++;
      this.options.log.warn({ host: hostOf(job.subscription.endpoint), queued: this.waiting.length }, 'push dropped: the push queue is full');
      return false;
    }
    this.waiting.push(job);
    this.pump();
    return true;
  }

  /**
   * From now on a push the push service failed to take is kept as a job (kind `push.retry`) and
   * retried with the queue's backoff until its TTL ends; one with TTL 0 (now or never) is not.
   * A retry that finds the endpoint gone only logs it: the device is marked at its next push.
   */
  retryOn(jobs: JobQueue, db: Executor, clock: Clock): void {
    this.retries = { jobs, db, clock };
    jobs.runner.register<PushRetry>(PUSH_RETRY_KIND, {
      run: async ({ payload: retry }) => {
        const ttlSeconds = Math.floor((retry.expiresAt - clock.now()) / 1000);
        const host = hostOf(retry.subscription.endpoint);
        if (ttlSeconds <= 0) {
          this.options.log.warn({ host }, 'push not delivered: its TTL passed while retrying');
          return;
        }
        const outcome = await this.deliver(retry.subscription, retry.payload, ttlSeconds);
        if (outcome.result === 'retry') throw new Error(outcome.status ? `HTTP ${outcome.status}` : outcome.reason);
        if (outcome.result === 'gone') this.options.log.warn({ host }, 'push endpoint gone on a retry');
        if (outcome.result === 'failed') this.options.log.warn({ host, status: outcome.status }, 'push not delivered');
      },
      // Short waits: a push is worth something for minutes, not hours; the TTL ends the retries.
      retry: { baseMs: 10_000, maxMs: 300_000, maxAttempts: 10_000, leaseMs: this.options.timeoutMs * 2 },
    });
  }

  /** Resolves once nothing is waiting or being sent. */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking pushes, sends what is queued, closes connections. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    this.agent.destroy();
  }

  private pump(): void {
    while (this.running < this.options.concurrency && this.waiting.length) {
      const job = this.waiting.shift()!;
      this.running++;
      void this.send(job).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.waiting.length === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      });
    }
  }

  private async send(job: PushJob): Promise<void> {
    const { subscription, payload, ttlSeconds } = job;
    const outcome = await this.deliver(subscription, payload, ttlSeconds);
    if (outcome.result === 'sent') return;
    if (outcome.result === 'gone') {
      await job.onGone().catch((e: unknown) => this.options.log.warn({ reason: (e as Error).message }, 'push endpoint not marked expired'));
      return;
    }
    const host = hostOf(subscription.endpoint);
    if (outcome.result === 'retry' && ttlSeconds > 0 && this.retries) {
      const { jobs, db, clock } = this.retries;
      const retry: PushRetry = { subscription, payload, expiresAt: clock.now() + ttlSeconds * 1000 };
      try {
        await jobs.enqueue(db, PUSH_RETRY_KIND, retry, { runAt: clock.now() + 10_000 });
        this.options.log.warn({ host, status: outcome.status }, 'push not delivered: retried later');
        return;
      } catch (err) {
        this.options.log.warn({ host, reason: (err as Error).message }, 'push retry not kept');
      }
    }
    this.options.log.warn({ host, status: outcome.status, reason: outcome.status ? undefined : outcome.reason }, 'push not delivered');
  }

  private async deliver(subscription: PushSubscription, payload: Record<string, unknown> | null, ttlSeconds: number): Promise<Outcome> {
    const hasKeys = subscription.publicKey !== '' && subscription.authKey !== '';
    try {
      await webpush.sendNotification(
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.publicKey, auth: subscription.authKey } },
        hasKeys && payload !== null ? JSON.stringify(payload) : null,
        {
          vapidDetails: { subject: this.options.subject, publicKey: this.options.vapid.publicKey, privateKey: this.options.vapid.privateKey },
          contentEncoding: 'aes128gcm',
          TTL: ttlSeconds,
          timeout: this.options.timeoutMs,
          agent: this.agent,
        },
      );
      return { result: 'sent' };
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      // RFC 8030 §7.3: 404 and 410 mean the subscription is gone for good.
      if (status === 404 || status === 410) return { result: 'gone' };
      return { result: retryable(status) ? 'retry' : 'failed', status: status ?? null, reason: (err as Error).message };
    }
  }
}
