import type { Executor } from '../storage/executor.js';
import { jobsOf, jobSummary, listJobs, reviveJob, type JobSummary } from './store.js';

// The job queue's admin commands (`npm run admin -- jobs …`). A job's payload is never printed:
// it may hold addresses and account ids. What an operator needs is its kind, state, attempts,
// last error and times.

export const JOBS_HELP = `  jobs list [--state pending|dead]           Jobs of the queue (at most 200), oldest first: id, kind,
                                               state, attempts, when due (or dead since), last error.
  jobs show <id>                               One job, without its payload.
  jobs retry <id>                              Runs the job again as soon as a server sweeps (a dead one
                                               with a fresh budget of attempts).`;

const iso = (ms: number) => new Date(ms).toISOString();

function line(j: JobSummary): string {
  const when = j.state === 'dead' ? `dead since ${iso(j.updatedAt)}` : `due ${iso(j.runAt)}`;
  return `${j.id}  ${j.kind}  ${j.state}  attempts ${j.attempts}  ${when}${j.lastError ? `  last error: ${j.lastError}` : ''}\n`;
}

/** Runs `jobs <action> …`; the exit status. Throws on a usage error (the CLI prints it, status 2). */
export async function jobsCommand(db: Executor, action: string | undefined, rest: string[], out: (text: string) => void, now = Date.now()): Promise<number> {
  const jobs = jobsOf(db);
  if (action === 'list') {
    const i = rest.indexOf('--state');
    const state = i >= 0 ? rest[i + 1] : null;
    if (state !== null && state !== 'pending' && state !== 'dead') throw new Error('--state is pending or dead');
    const rows = await listJobs(jobs, state, 200);
    for (const j of rows) out(line(j));
    if (!rows.length) out(state ? `no ${state} jobs\n` : 'no jobs\n');
    return 0;
  }
  const id = rest[0];
  if ((action === 'show' || action === 'retry') && !id) throw new Error(`jobs ${action} needs a job id`);
  if (action === 'show') {
    const j = await jobSummary(jobs, id!);
    if (!j) throw new Error(`no job ${id}`);
    out(`id          ${j.id}\nkind        ${j.kind}\nstate       ${j.state}\nattempts    ${j.attempts}\n`
      + `${j.state === 'dead' ? 'dead since' : 'due        '} ${iso(j.state === 'dead' ? j.updatedAt : j.runAt)}\n`
      + `created     ${iso(j.createdAt)}\nupdated     ${iso(j.updatedAt)}\nlast error  ${j.lastError ?? '-'}\n`);
    return 0;
  }
  if (action === 'retry') {
    if (!(await reviveJob(jobs, id!, now))) throw new Error(`no job ${id}`);
    out(`job ${id} is due now (a running server takes it up at its next sweep)\n`);
    return 0;
  }
  return 1;
}
