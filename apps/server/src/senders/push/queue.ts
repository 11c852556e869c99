import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import webpush from 'web-push';
import type { VapidKeys } from './vapid.js';

// Web Push out of the request path: a request enqueues its pushes and goes on; a bounded number of
// workers send them, each encrypted (aes128gcm, RFC 8291) to its subscription's keys and signed with
// the server's VAPID key (RFC 8292). A full queue drops new pushes rather than grow or block.

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
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      // RFC 8030 §7.3: 404 and 410 mean the subscription is gone for good.
      if (status === 404 || status === 410) {
        await job.onGone().catch((e: unknown) => this.options.log.warn({ reason: (e as Error).message }, 'push endpoint not marked expired'));
        return;
      }
      this.options.log.warn({ host: hostOf(subscription.endpoint), status: status ?? null, reason: status ? undefined : (err as Error).message }, 'push not delivered');
    }
  }
}
