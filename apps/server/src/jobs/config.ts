import { defineConfig, int, type ConfigValues } from '../config-schema.js';

// How the job queue (jobs/) retries: the defaults of every job kind. A kind may bring its own
// waits (webhooks keep WEBHOOK_RETRY_*), but every kind ends in the dead-letter state after its
// last attempt, where `npm run admin -- jobs list --state dead` shows it and `jobs retry` revives it.

export const jobsConfig = defineConfig({
  retryBaseSeconds: {
    env: 'JOBS_RETRY_BASE_SECONDS', default: 30, parse: int(1, 86_400),
    description: 'Wait before the first retry of a failed job; each further failure doubles it, up to JOBS_RETRY_MAX_SECONDS.',
  },
  retryMaxSeconds: {
    env: 'JOBS_RETRY_MAX_SECONDS', default: 3600, parse: int(1, 604_800),
    description: 'Longest wait between two attempts of one job.',
  },
  maxAttempts: {
    env: 'JOBS_MAX_ATTEMPTS', default: 200, parse: int(1, 100_000),
    description: 'Attempts of one job before it is moved to the dead-letter state (kept, not run again until an operator retries it). With the default waits, 200 attempts span about a week.',
  },
  leaseSeconds: {
    env: 'JOBS_LEASE_SECONDS', default: 300, parse: int(1, 86_400),
    description: 'How long an instance holds a job it started. A job whose instance died mid-attempt is taken up again after it, so a handler must finish within it (kinds that time out sooner, such as webhooks, hold theirs for less).',
  },
  sweepSeconds: {
    env: 'JOBS_SWEEP_SECONDS', default: 60, parse: int(1, 86_400),
    description: 'How often each instance looks for due jobs besides the ones it wrote itself: what another instance left (a crash, a restart) runs within this.',
  },
});

export type JobsConfig = ConfigValues<typeof jobsConfig>;
