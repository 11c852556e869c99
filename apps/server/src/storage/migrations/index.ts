import type { Migration } from 'kysely';
import * as m0001 from './0001_create_accounts.js';
import * as m0002 from './0002_add_email_codes.js';
import * as m0003 from './0003_add_code_budgets.js';
import * as m0006 from './0006_add_security_events.js';

/**
 * Every migration, in order. Names are `NNNN_verb_noun`; a migration never changes once released —
 * add the next number instead. They run on start (storage/db.ts) and in every test database.
 */
export const MIGRATIONS: Record<string, Migration> = {
  '0001_create_accounts': m0001,
  '0002_add_email_codes': m0002,
  '0003_add_code_budgets': m0003,
  '0006_add_security_events': m0006,
};
