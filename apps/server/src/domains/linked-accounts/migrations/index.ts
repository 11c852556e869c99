import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0014 from './0014_add_linked_accounts.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0014_add_linked_accounts': m0014,
};
