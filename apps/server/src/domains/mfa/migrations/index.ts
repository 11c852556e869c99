import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0015 from './0015_add_mfa_otp_codes.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0015_add_mfa_otp_codes': m0015,
};
