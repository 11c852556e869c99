import type { Kysely, Migration } from 'kysely';
import * as m0001 from './0001_create_accounts.js';
import * as m0002 from './0002_add_email_codes.js';
import * as m0005 from './0005_key_token_ids.js';
import * as m0016 from './0016_add_locations_support_newsletters.js';
import * as m0023 from './0023_add_jobs.js';

/** What a migration may need beyond the database: the server secret, to rekey stored tokens (0005). */
export interface MigrationContext {
  authSecret?: string;
}

/** A Kysely migration whose `up` may also take the context (storage/db.ts passes it). */
export interface TesseraMigration extends Migration {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>, context?: MigrationContext): Promise<void>;
}

/**
 * The platform's migrations: those that span several domains (written before domains carried
 * their own) and the platform's own tables. Each domain's are in its migrations/ folder, listed by
 * its manifest; app.ts's migrationsOf composes them all into one order by name.
 *
 * Every migration, in order. Names are `NNNN_verb_noun`; a migration never changes once released —
 * add the next number instead. They run on start (storage/db.ts) and in every test database.
 */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0001_create_accounts': m0001,
  '0002_add_email_codes': m0002,
  '0005_key_token_ids': m0005,
  '0016_add_locations_support_newsletters': m0016,
  '0023_add_jobs': m0023,
};
