import type { Kysely } from 'kysely';
import { afterCommit } from '../../storage/after-commit.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { checkPushCallback, type PushHost } from './push-hosts.js';
import { markPushEndpointExpired, type Device } from './store.js';

// Pushes to an account's devices: queued outside the request, to the endpoints that are still
// allowed and alive.

/** Where pushes go: a bounded queue outside the request (senders/push). */
export interface Pusher {
  enqueue(job: {
    subscription: { endpoint: string; publicKey: string; authKey: string };
    /** Null: a push without payload (the account's state changed). */
    payload: Record<string, unknown> | null;
    ttlSeconds: number;
    onGone: () => Promise<void>;
  }): boolean;
}

export class DevicePushes {
  constructor(private readonly deps: { db: Kysely<Database>; pushAllowedHosts: readonly PushHost[]; push: Pusher }) {}

  /**
   * Queues one push per device that has a live endpoint; returns at once. A 404/410 from the push
   * service flags the endpoint expired; other failures are logged by the queue.
   */
  pushTo(devices: Device[], payload: Record<string, unknown> | null, ttlSeconds: number): void {
    for (const d of devices) {
      if (!d.pushCallback || d.pushEndpointExpired) continue;
      const endpoint = d.pushCallback;
      // Checked again as it is used: a callback stored before callbacks were normalised, or on a
      // host PUSH_ALLOWED_HOSTS no longer names, is not pushed to.
      const checked = checkPushCallback(endpoint, this.deps.pushAllowedHosts);
      if (checked.href === null) continue;
      this.deps.push.enqueue({
        subscription: { endpoint: checked.href, publicKey: d.pushPublicKey ?? '', authKey: d.pushAuthKey ?? '' },
        payload, ttlSeconds,
        onGone: () => markPushEndpointExpired(this.deps.db, d.uid, d.id, endpoint),
      });
    }
  }

  /**
   * `pushTo` once `db`'s transaction commits (at once outside a transaction), dropped if it rolls
   * back (storage/after-commit.ts): a device told of a change re-reads the account, and must find
   * the change there.
   */
  afterCommit(db: Executor, devices: Device[], payload: Record<string, unknown> | null, ttlSeconds: number): Promise<void> {
    return afterCommit(db, () => this.pushTo(devices, payload, ttlSeconds));
  }
}
