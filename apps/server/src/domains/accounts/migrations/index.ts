import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0004 from './0004_add_unblock_codes.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0004_add_unblock_codes': m0004,
};
