import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Executor } from '../storage/executor.js';
import type { Database } from '../storage/schema.js';
import { jobsConfig } from './config.js';
import { claimJob, completeJob, dueJobs, failJob, findJob, jobsOf, nextDue } from './store.js';

// The runner of the job queue: it attempts a job when its writer's transaction committed (a
// kick), when a retry falls due (one timer, at the earliest retry), and in a sweep at start and
// every JOBS_SWEEP_SECONDS (what another instance or a killed process left). Any number of
// instances may run it over one database: each attempt is claimed first (store.ts).

/** Runs `fn` after `ms`; returns a cancel function. Tests inject one they drive themselves. */
export type Scheduler = (fn: () => void, ms: number) => () => void;

export const timerScheduler: Scheduler = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export interface RetryPolicy {
  /** Wait after the first failure; doubled after each further one, up to `maxMs`. */
  baseMs: number;
  maxMs: number;
  /** The attempt that fails as number `maxAttempts` moves the job to the dead-letter state. */
  maxAttempts: number;
  /** How long one attempt holds the job; past it another runner may take it up. */
  leaseMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  baseMs: jobsConfig.retryBaseSeconds.default * 1000, maxMs: jobsConfig.retryMaxSeconds.default * 1000,
  maxAttempts: jobsConfig.maxAttempts.default, leaseMs: jobsConfig.leaseSeconds.default * 1000,
};

export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** 1 for the first attempt. */
  attempt: number;
}

/**
 * What a kind of job does. `run` must be idempotent: a job runs at least once, and more than once
 * when a runner dies (or outlives its lease) after the effect but before the job's row is removed;
 * pass the job id on (webhooks send it as their delivery id) so the other side can drop repeats.
 */
export interface JobHandler<P = unknown> {
  /** Does the work; throwing makes the attempt a failure (its message is kept as the last error). */
  run(job: Job<P>): Promise<void>;
  /** Runs in the transaction that removes the finished job (e.g. marks a ticket forwarded). */
  done?(trx: Executor, job: Job<P>): Promise<void>;
  retry?: Partial<RetryPolicy>;
}

/** What one attempt came to; `skipped`: not attempted (not due, held elsewhere, gone, kind unknown here). */
export type JobOutcome = 'done' | 'retry' | 'dead' | 'skipped';

export interface JobRunnerDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: { warn(obj: object, msg: string): void; error?(obj: object, msg: string): void };
  retry?: Partial<RetryPolicy>;
  scheduler?: Scheduler;
  /** How many due jobs one sweep takes. */
  batch?: number;
}

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler<never>>();
  private readonly scheduler: Scheduler;
  private readonly defaults: RetryPolicy;
  private readonly timers = new Set<() => void>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private started = false;
  private closed = false;
  private wake: { at: number; cancel: () => void } | null = null;

  constructor(private readonly deps: JobRunnerDeps) {
    this.scheduler = deps.scheduler ?? timerScheduler;
    this.defaults = { ...DEFAULT_RETRY, ...deps.retry };
  }

  /** Runs the jobs of `kind` here from now on; a kind has one handler. */
  register<P>(kind: string, handler: JobHandler<P>): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.handlers.set(kind, handler as JobHandler<never>);
  }

  handles(kind: string): boolean {
    return this.handlers.has(kind);
  }

  /** One attempt at job `id`, if it is due, its kind is handled here and no other runner holds it. */
  async runOne(id: string): Promise<JobOutcome> {
    const { clock } = this.deps;
    const db = jobsOf(this.deps.db);
    const row = await findJob(db, id);
    const handler = row && this.handlers.get(row.kind);
    if (!row || !handler || row.state !== 'pending' || row.runAt > clock.now()) return 'skipped';
    const policy = { ...this.defaults, ...handler.retry };
    if (!(await claimJob(db, row, clock.now(), clock.now() + policy.leaseMs))) return 'skipped';
    const attempt = row.attempts + 1;
    let job: Job<never> | null = null;
    let error: string | null = null;
    try {
      job = { id, kind: row.kind, payload: JSON.parse(row.payload) as never, attempt };
      await handler.run(job);
    } catch (err) {
      error = (err as Error)?.message || String(err) || 'failed';
    }
    if (error === null) {
      await this.deps.db.transaction().execute(async (trx) => {
        if (await completeJob(jobsOf(trx), id, attempt)) await handler.done?.(trx, job!);
      });
      return 'done';
    }
    const now = clock.now();
    if (attempt >= policy.maxAttempts) {
      await failJob(db, id, attempt, { state: 'dead', runAt: now, error, now });
      (this.deps.log.error ?? this.deps.log.warn).call(this.deps.log, { kind: row.kind, job: id, attempts: attempt, reason: error }, 'job failed its last attempt: dead');
      return 'dead';
    }
    const wait = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(row.attempts, 30));
    await failJob(db, id, attempt, { state: 'pending', runAt: now + wait, error, now });
    this.deps.log.warn({ kind: row.kind, job: id, attempts: attempt, retryInMs: wait, reason: error }, 'job failed: retried later');
    this.schedule(wait);
    return 'retry';
  }

  /** Attempts a job just committed, in the background. */
  kick(id: string): void {
    if (this.closed) return;
    this.track(this.runOne(id).catch((err: Error) => this.deps.log.warn({ job: id, reason: err.message }, 'job attempt failed')));
  }

  /**
   * Attempts every due job of the kinds handled here; how many succeeded. Jobs of other kinds
   * (a feature not configured on this instance) wait in the table, and do not keep it awake.
   */
  async sweep(): Promise<number> {
    if (this.closed) return 0;
    const kinds = [...this.handlers.keys()];
    const { clock } = this.deps;
    const db = jobsOf(this.deps.db);
    let done = 0;
    for (const id of await dueJobs(db, kinds, clock.now(), this.deps.batch ?? 100)) {
      if ((await this.runOne(id)) === 'done') done += 1;
    }
    const next = await nextDue(db, kinds);
    // At least a second: a job that stayed due (another instance holds it) is not spun on.
    if (next !== null) this.schedule(Math.max(1000, next - clock.now()));
    return done;
  }

  /** The start-up sweep, then one every `sweepIntervalMs`. Starting twice starts once. */
  start(sweepIntervalMs = jobsConfig.sweepSeconds.default * 1000): void {
    if (this.started) return;
    this.started = true;
    const every = () => {
      if (this.closed) return;
      this.track(this.sweep().catch((err: Error) => this.deps.log.warn({ reason: err.message }, 'job sweep failed')));
      const cancel = this.scheduler(() => {
        this.timers.delete(cancel);
        every();
      }, sweepIntervalMs);
      this.timers.add(cancel);
    };
    every();
  }

  /** A sweep in `ms` (or earlier, when a sooner one is due): for a job written to run later. */
  wakeIn(ms: number): void {
    this.schedule(ms);
  }

  /** Resolves once the attempts started so far have ended. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** No new attempts or timers; `idle()` then waits for the ones running. */
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
      this.track(this.sweep().catch((err: Error) => this.deps.log.warn({ reason: err.message }, 'job sweep failed')));
    }, ms);
    this.timers.add(cancel);
    this.wake = { at, cancel };
  }

  private track(p: Promise<unknown>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }
}
