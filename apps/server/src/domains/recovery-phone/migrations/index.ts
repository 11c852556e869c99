import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0012 from './0012_add_recovery_phones.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0012_add_recovery_phones': m0012,
};
