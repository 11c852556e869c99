import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0008 from './0008_add_devices.js';
import * as m0009 from './0009_add_device_commands.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0008_add_devices': m0008,
  '0009_add_device_commands': m0009,
};
