import type { Generated } from 'kysely';

/**
 * The job queue's one table (jobs/store.ts is the only code that reads or writes it): a
 * transactional outbox. A job is written in the transaction of the change that calls for it, so it
 * exists exactly when the change committed; it stays until its handler succeeded (then the row
 * goes) or its last attempt failed (then it stays, `dead`, for an operator).
 */
export interface JobsTable {
  /** 16 random bytes (hex); webhooks send it as their delivery id. */
  id: string;
  /** Which handler runs it, e.g. `webhook.support`. */
  kind: string;
  /** The caller's idempotency key: one job per (kind, key) while it is in the table. */
  dedupe_key: string | null;
  /** JSON. May hold addresses: the admin CLI never prints it. */
  payload: string;
  state: JobState;
  /** Attempts started so far (a claim counts one). */
  attempts: Generated<number>;
  /**
   * When a pending job is due (ms). A runner that claims it moves it past its lease, so another
   * runner finds it not due until the lease ends (a runner killed mid-attempt loses it then).
   */
  run_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export type JobState = 'pending' | 'dead';

export interface JobsDatabase {
  jobs: JobsTable;
}
