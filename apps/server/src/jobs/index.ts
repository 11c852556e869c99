export { jobsConfig, type JobsConfig } from './config.js';
export { enqueue, JobQueue, type EnqueueOptions } from './queue.js';
export { DEFAULT_RETRY, JobRunner, timerScheduler, type Job, type JobHandler, type JobOutcome, type JobRunnerDeps, type RetryPolicy, type Scheduler } from './runner.js';
export { jobSummary, listJobs, reviveJob, type JobSummary } from './store.js';
export type { JobsDatabase, JobsTable, JobState } from './tables.js';
