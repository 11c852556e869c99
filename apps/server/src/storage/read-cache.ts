import type { WriteEpoch } from './write-epoch.js';

interface Entry<V> {
  value: V;
  at: number;
  epoch: number;
}

/**
 * Rows read on the hottest paths (a session behind every authenticated request; an OAuth client
 * and its access token behind every introspection), kept in process for a short time. An entry is
 * trusted only while this process has written nothing to the database since it was read (the
 * write epoch, write-epoch.ts), and for at most `ttlMs`: so a sign-out, a revocation or a secret
 * rotation made here is seen at once, and one made by another instance (or the admin command)
 * within `ttlMs`. Only rows that were found are kept, so unknown keys always reach the database and
 * cannot crowd out live entries. Bounded: the oldest entries go first.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly epoch: WriteEpoch, private readonly ttlMs: number, private readonly max = 10_000) {}

  get(key: string, now: number): V | undefined {
    if (this.ttlMs <= 0) return undefined;
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.epoch !== this.epoch.value || now - e.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** The epoch to pass to `set` for a read that starts now. */
  mark(): number {
    return this.epoch.value;
  }

  /** Stores a row read while the epoch was `epochAtRead` (a write meanwhile voids it). */
  set(key: string, value: V, now: number, epochAtRead: number): void {
    if (this.ttlMs <= 0 || epochAtRead !== this.epoch.value) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: now, epoch: epochAtRead });
  }
}
