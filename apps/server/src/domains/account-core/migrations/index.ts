import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0003 from './0003_add_code_budgets.js';
import * as m0007 from './0007_add_stub_client_ids.js';
import * as m0013 from './0013_add_emails.js';
import * as m0022 from './0022_add_reset_code_budgets.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0003_add_code_budgets': m0003,
  '0007_add_stub_client_ids': m0007,
  '0013_add_emails': m0013,
  '0022_add_reset_code_budgets': m0022,
};
