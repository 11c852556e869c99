import type { WriteEpoch } from '../../storage/write-epoch.js';
import type { SessionWithAccount } from './store.js';

interface Entry {
  session: SessionWithAccount;
  at: number;
  epoch: number;
}

/**
 * Session lookups, kept in process for a short time: the lookup is behind every authenticated
 * request. An entry is trusted only while this process has written nothing to the database since
 * it was read, and for at most `ttlMs`; so a sign-out, a confirmation or a password change here is
 * seen at once, and one made by another instance within `ttlMs`. Bounded: oldest entries go first.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly epoch: WriteEpoch, private readonly ttlMs: number, private readonly max = 10_000) {}

  get(id: string, now: number): SessionWithAccount | undefined {
    if (this.ttlMs <= 0) return undefined;
    const e = this.entries.get(id);
    if (!e) return undefined;
    if (e.epoch !== this.epoch.value || now - e.at >= this.ttlMs) {
      this.entries.delete(id);
      return undefined;
    }
    return e.session;
  }

  /** Stores a session read while the epoch was `epochAtRead` (a write meanwhile voids it). */
  set(id: string, session: SessionWithAccount, now: number, epochAtRead: number): void {
    if (this.ttlMs <= 0 || epochAtRead !== this.epoch.value) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { session, at: now, epoch: epochAtRead });
  }
}
