// The two-step domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** Issue 12: an account's authenticator app (TOTP), at most one row per account. */
export interface TotpTable {
  uid: string;
  /** The shared secret, AES-256-GCM sealed under TOTP_ENCRYPTION_KEY (domains/two-step/secret-box.ts). */
  sealed_secret: string;
  /** 1 once /totp/setup/verify accepted a code from the app. */
  verified: number;
  /** 1 once /totp/setup/complete turned two-step on: sign-ins then need a second factor. */
  enabled: number;
  /** A replacement secret between /totp/replace/start and /totp/replace/confirm (sealed the same way). */
  pending_sealed_secret: string | null;
  /** The last 30-second step a code was accepted for: a code of that step or an earlier one is refused. */
  last_step: number | null;
  created_at: number;
  enabled_at: number | null;
}

/** Issue 12: backup authentication codes, one row per unused code. */
export interface RecoveryCodesTable {
  uid: string;
  /** HMAC-SHA256 of the lower-cased code under a key derived from TOTP_ENCRYPTION_KEY. */
  code_hash: string;
  created_at: number;
}

/** The two-step domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface TwoStepTables {
  totp: TotpTable;
  recovery_codes: RecoveryCodesTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends TwoStepTables {}
}
