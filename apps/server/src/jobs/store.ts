import { MysqlAdapter, type Kysely, type Transaction } from 'kysely';
import type { Executor } from '../storage/executor.js';
import type { JobsDatabase, JobState } from './tables.js';

// The queries of the jobs table, typed against that table alone. Claims are a compare-and-set on
// (run_at, attempts): portable to SQLite, PostgreSQL and MySQL alike, and safe with any number of
// processes on one database, since exactly one UPDATE can move a row from the value it read.

export type JobsDb = Kysely<JobsDatabase> | Transaction<JobsDatabase>;

/** The server's database (or a transaction on it) as this store sees it: the jobs table alone. */
export const jobsOf = (db: Executor): JobsDb => db as unknown as JobsDb;

export interface JobRow {
  id: string;
  kind: string;
  payload: string;
  state: JobState;
  attempts: number;
  runAt: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What the admin CLI shows: everything but the payload. */
export type JobSummary = Omit<JobRow, 'payload'>;

const summaryColumns = ['id', 'kind', 'state', 'attempts', 'run_at', 'last_error', 'created_at', 'updated_at'] as const;

type Raw = { id: string; kind: string; state: string; attempts: number | string; run_at: number | string; last_error: string | null; created_at: number | string; updated_at: number | string };
const summary = (r: Raw): JobSummary => ({
  id: r.id, kind: r.kind, state: r.state as JobState, attempts: Number(r.attempts), runAt: Number(r.run_at),
  lastError: r.last_error, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
});

/**
 * Writes a pending job; with a key, only when no job of that kind and key is in the table (the
 * id of the one there is returned instead). The insert skips a conflicting row rather than fail,
 * so a race between two writers of one key never aborts the caller's transaction.
 */
export async function insertJob(db: JobsDb, job: { id: string; kind: string; key: string | null; payload: string; runAt: number; now: number }): Promise<string> {
  const values = {
    id: job.id, kind: job.kind, dedupe_key: job.key, payload: job.payload, state: 'pending' as const,
    run_at: job.runAt, last_error: null, created_at: job.now, updated_at: job.now,
  };
  if (job.key === null) {
    await db.insertInto('jobs').values(values).execute();
    return job.id;
  }
  const insert = db.insertInto('jobs').values(values);
  await (db.getExecutor().adapter instanceof MysqlAdapter
    ? insert.ignore()
    : insert.onConflict((oc) => oc.columns(['kind', 'dedupe_key']).doNothing())).execute();
  const row = await db.selectFrom('jobs').select('id').where('kind', '=', job.kind).where('dedupe_key', '=', job.key).executeTakeFirstOrThrow();
  return row.id;
}

export async function findJob(db: JobsDb, id: string): Promise<JobRow | undefined> {
  const r = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return r && { ...summary(r), payload: r.payload };
}

/**
 * Takes a pending, due job for one attempt: its attempts count one more and it is not due again
 * until `leaseUntil`. True for the one caller whose UPDATE moved it; any other finds it changed.
 */
export async function claimJob(db: JobsDb, row: JobRow, now: number, leaseUntil: number): Promise<boolean> {
  const res = await db.updateTable('jobs')
    .set({ run_at: leaseUntil, attempts: row.attempts + 1, updated_at: now })
    .where('id', '=', row.id).where('state', '=', 'pending')
    .where('run_at', '=', row.runAt).where('attempts', '=', row.attempts)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Removes a job whose attempt number `attempts` succeeded; false when the row moved on meanwhile
 * (its lease ran out and another runner holds it now, or an operator removed it).
 */
export async function completeJob(db: JobsDb, id: string, attempts: number): Promise<boolean> {
  const res = await db.deleteFrom('jobs').where('id', '=', id).where('attempts', '=', attempts).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** Records a failed attempt: due again at `runAt`, or `dead` for good. */
export async function failJob(db: JobsDb, id: string, attempts: number, outcome: { state: JobState; runAt: number; error: string; now: number }): Promise<void> {
  await db.updateTable('jobs')
    .set({ state: outcome.state, run_at: outcome.runAt, last_error: outcome.error.slice(0, 255), updated_at: outcome.now })
    .where('id', '=', id).where('attempts', '=', attempts).execute();
}

/** Ids of pending jobs of `kinds` due by `now`, oldest first. */
export async function dueJobs(db: JobsDb, kinds: string[], now: number, limit: number): Promise<string[]> {
  if (!kinds.length) return [];
  const rows = await db.selectFrom('jobs').select('id').where('state', '=', 'pending').where('kind', 'in', kinds)
    .where('run_at', '<=', now).orderBy('run_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** When the next pending job of `kinds` is due, if any. */
export async function nextDue(db: JobsDb, kinds: string[]): Promise<number | null> {
  if (!kinds.length) return null;
  const row = await db.selectFrom('jobs').select('run_at').where('state', '=', 'pending').where('kind', 'in', kinds)
    .orderBy('run_at').limit(1).executeTakeFirst();
  return row ? Number(row.run_at) : null;
}

export async function listJobs(db: JobsDb, state: JobState | null, limit: number): Promise<JobSummary[]> {
  let q = db.selectFrom('jobs').select(summaryColumns).orderBy('created_at').orderBy('id').limit(limit);
  if (state) q = q.where('state', '=', state);
  return (await q.execute()).map(summary);
}

export async function jobSummary(db: JobsDb, id: string): Promise<JobSummary | undefined> {
  const r = await db.selectFrom('jobs').select(summaryColumns).where('id', '=', id).executeTakeFirst();
  return r && summary(r);
}

/**
 * An operator's retry: the job is pending and due at `now`, with a fresh budget of attempts
 * (a dead job would otherwise die again at its first failure). False when there is no such job.
 */
export async function reviveJob(db: JobsDb, id: string, now: number): Promise<boolean> {
  const res = await db.updateTable('jobs').set({ state: 'pending', run_at: now, attempts: 0, updated_at: now })
    .where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
