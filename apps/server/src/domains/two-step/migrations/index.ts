import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0010 from './0010_add_totp.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0010_add_totp': m0010,
};
