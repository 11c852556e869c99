import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0011 from './0011_add_recovery_keys.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0011_add_recovery_keys': m0011,
};
