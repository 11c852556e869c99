// Table types for Kysely. Columns are snake_case; binary values (ids, keys, hashes) are lowercase
// hex strings, times are milliseconds since the epoch, booleans are 0/1 integers (the one form all
// three dialects share). Domain code never sees these rows: each domain's store.ts maps them once.
// Each domain declares its own tables in its tables.ts (with the notes of the portal's
// database-structure page) and adds them to Database from there (declaration merging), so a new
// domain's tables join from its own folder and storage/ names no domain.
import type { JobsTable } from '../jobs/tables.js';

/** Tables of platform code outside domains/. */
export interface PlatformTables {
  /** The job queue (jobs/tables.ts). */
  jobs: JobsTable;
}

/** Every table: the platform's, and each domain's (its tables.ts extends this interface). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database extends PlatformTables {}
