import { randomHex } from '@tessera/protocol';
import type { Clock } from '../clock.js';
import { afterCommit } from '../storage/after-commit.js';
import type { Executor } from '../storage/executor.js';
import type { JobRunner } from './runner.js';
import { insertJob, jobsOf } from './store.js';

// Writing jobs. A job is a row written on the caller's executor — inside its transaction when it
// has one — so it exists if and only if the change that asked for it committed: a rolled-back
// change never runs its job, and a committed one keeps it across a crash until it has run.

export interface EnqueueOptions {
  /** Idempotency: while a job of this kind and key is in the table (pending or dead), no second one is written and its id is returned. */
  key?: string;
  /** Not before this time (ms); default now. */
  runAt?: number;
  /**
   * `commit` (default): attempted as soon as the caller's transaction commits (at once outside
   * one), or at `runAt` when that is later. `caller`: the caller attempts it itself (`runner.runOne`), e.g. to report the outcome;
   * either way the sweep and the retries take it from there.
   */
  start?: 'commit' | 'caller';
}

/** Writes job `kind` with `payload` (JSON) on `db`; its id. */
export async function enqueue(db: Executor, clock: Clock, kind: string, payload: unknown, options: Omit<EnqueueOptions, 'start'> = {}): Promise<string> {
  const now = clock.now();
  return insertJob(jobsOf(db), { id: randomHex(16), kind, key: options.key ?? null, payload: JSON.stringify(payload), runAt: options.runAt ?? now, now });
}

/** The queue the server shares: writes jobs and hands them to its runner once committed. */
export class JobQueue {
  constructor(private readonly clock: Clock, readonly runner: JobRunner) {}

  async enqueue(db: Executor, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<string> {
    const id = await enqueue(db, this.clock, kind, payload, options);
    if (options.start === 'caller' || !this.runner.handles(kind)) return id;
    // A job for later wakes the runner then, rather than wait for the next sweep.
    const wait = (options.runAt ?? 0) - this.clock.now();
    await afterCommit(db, () => (wait > 0 ? this.runner.wakeIn(wait) : this.runner.kick(id)));
    return id;
  }
}
