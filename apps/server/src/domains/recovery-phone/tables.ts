// The recovery-phone domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

export interface RecoveryPhonesTable {
  uid: string;
  /** The confirmed number, E.164 (a plus and at most 15 digits). */
  phone_number: string;
  created_at: number;
}

export interface RecoveryPhoneCodesTable {
  uid: string;
  /** `setup` (a number being added or changed), `signin` or `reset`. */
  purpose: string;
  /** HMAC-SHA256 (hex) of the 6-digit code. */
  code_hash: string;
  /** The number the code went to (for `setup`, the number that becomes the account's). */
  phone_number: string;
  /** Wrong guesses at this purpose's codes; a resend keeps the count. */
  failures: number;
  created_at: number;
  expires_at: number;
}

/** The recovery-phone domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface RecoveryPhoneTables {
  recovery_phones: RecoveryPhonesTable;
  recovery_phone_codes: RecoveryPhoneCodesTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends RecoveryPhoneTables {}
}
