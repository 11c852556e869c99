import type { Kysely, Migration } from 'kysely';
import * as m0001 from './0001_create_accounts.js';
import * as m0002 from './0002_add_email_codes.js';
import * as m0003 from './0003_add_code_budgets.js';
import * as m0004 from './0004_add_unblock_codes.js';
import * as m0005 from './0005_key_token_ids.js';
import * as m0006 from './0006_add_security_events.js';
import * as m0007 from './0007_add_stub_client_ids.js';
import * as m0008 from './0008_add_devices.js';
import * as m0009 from './0009_add_device_commands.js';
import * as m0010 from './0010_add_totp.js';
import * as m0011 from './0011_add_recovery_keys.js';
import * as m0012 from './0012_add_recovery_phones.js';
import * as m0013 from './0013_add_emails.js';
import * as m0014 from './0014_add_linked_accounts.js';
import * as m0015 from './0015_add_mfa_otp_codes.js';
import * as m0016 from './0016_add_locations_support_newsletters.js';
import * as m0017 from './0017_add_oauth_clients.js';
import * as m0018 from './0018_add_oauth_ppid_jwt.js';
import * as m0019 from './0019_add_oauth_grant_ids.js';
import * as m0020 from './0020_add_oauth_retired_refresh_tokens.js';
import * as m0021 from './0021_add_oauth_resources_amr.js';
import * as m0022 from './0022_add_reset_code_budgets.js';
import * as m0023 from './0023_add_jobs.js';

/** What a migration may need beyond the database: the server secret, to rekey stored tokens (0005). */
export interface MigrationContext {
  authSecret?: string;
}

/** A Kysely migration whose `up` may also take the context (storage/db.ts passes it). */
export interface TesseraMigration extends Migration {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>, context?: MigrationContext): Promise<void>;
}

/**
 * Every migration, in order. Names are `NNNN_verb_noun`; a migration never changes once released —
 * add the next number instead. They run on start (storage/db.ts) and in every test database.
 */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0001_create_accounts': m0001,
  '0002_add_email_codes': m0002,
  '0003_add_code_budgets': m0003,
  '0004_add_unblock_codes': m0004,
  '0005_key_token_ids': m0005,
  '0006_add_security_events': m0006,
  '0007_add_stub_client_ids': m0007,
  '0008_add_devices': m0008,
  '0009_add_device_commands': m0009,
  '0010_add_totp': m0010,
  '0011_add_recovery_keys': m0011,
  '0012_add_recovery_phones': m0012,
  '0013_add_emails': m0013,
  '0014_add_linked_accounts': m0014,
  '0015_add_mfa_otp_codes': m0015,
  '0016_add_locations_support_newsletters': m0016,
  '0017_add_oauth_clients': m0017,
  '0018_add_oauth_ppid_jwt': m0018,
  '0019_add_oauth_grant_ids': m0019,
  '0020_add_oauth_retired_refresh_tokens': m0020,
  '0021_add_oauth_resources_amr': m0021,
  '0022_add_reset_code_budgets': m0022,
  '0023_add_jobs': m0023,
};
