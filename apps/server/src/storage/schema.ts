// Table types for Kysely. Columns are snake_case; binary values (ids, keys, hashes) are lowercase
// hex strings, times are milliseconds since the epoch, booleans are 0/1 integers (the one form all
// three dialects share). Domain code never sees these rows: each domain's store.ts maps them once.
// Each domain declares its own tables in its tables.ts (with the notes of the portal's
// database-structure page); the Database is their composition, plus the platform's own tables.
// storage/ imports no domain but these type-only tables.ts (the domain-boundaries lint rule).
import type { JobsTable } from '../jobs/tables.js';
import type { AccountCoreTables } from '../domains/account-core/tables.js';
import type { SecurityEventsTables } from '../domains/security-events/tables.js';
import type { SessionsTables } from '../domains/sessions/tables.js';
import type { TokensTables } from '../domains/tokens/tables.js';
import type { AccountsTables } from '../domains/accounts/tables.js';
import type { EmailsTables } from '../domains/emails/tables.js';
import type { PasswordsTables } from '../domains/passwords/tables.js';
import type { TwoStepTables } from '../domains/two-step/tables.js';
import type { RecoveryPhoneTables } from '../domains/recovery-phone/tables.js';
import type { RecoveryKeysTables } from '../domains/recovery-keys/tables.js';
import type { MfaTables } from '../domains/mfa/tables.js';
import type { LinkedAccountsTables } from '../domains/linked-accounts/tables.js';
import type { OauthTables } from '../domains/oauth/tables.js';
import type { DevicesTables } from '../domains/devices/tables.js';
import type { SupportTables } from '../domains/support/tables.js';
import type { NewslettersTables } from '../domains/newsletters/tables.js';

/** Tables of platform code outside domains/. */
export interface PlatformTables {
  /** The job queue (jobs/tables.ts). */
  jobs: JobsTable;
}

export interface Database extends
  AccountCoreTables,
  SecurityEventsTables,
  SessionsTables,
  TokensTables,
  AccountsTables,
  EmailsTables,
  PasswordsTables,
  TwoStepTables,
  RecoveryPhoneTables,
  RecoveryKeysTables,
  MfaTables,
  LinkedAccountsTables,
  OauthTables,
  DevicesTables,
  SupportTables,
  NewslettersTables,
  PlatformTables {}
