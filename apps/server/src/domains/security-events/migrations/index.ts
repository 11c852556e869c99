import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0006 from './0006_add_security_events.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0006_add_security_events': m0006,
};
