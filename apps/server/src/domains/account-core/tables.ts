import type { Generated } from 'kysely';
// The account-core domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

export interface AccountsTable {
  /** Account id: 16 random bytes. */
  uid: string;
  /** The primary address, as typed: what sign-in looks up and where mail goes (also in emails, is_primary 1). */
  email: string;
  /** 16 random bytes; the emailed sign-up link carries it and confirms the address. */
  email_code: string;
  /** 1 once the primary address is confirmed. */
  email_verified: number;
  /** Class-A key: 32 random bytes, made at sign-up, never changed. */
  k_a: string;
  /** kB wrapped twice: wrapKb XOR wrapwrapKey (from the v1 verifier). */
  wrap_wrap_kb: string;
  /** 32 random bytes salting scrypt; new on every password change and reset. */
  auth_salt: string;
  /** HKDF(scrypt(authPW, authSalt), "verifyHash"): what a v1 authPW must reproduce. */
  verify_hash: string;
  /** 1: scrypt N=65536, r=8, p=1. */
  verifier_version: number;
  /** When the password was set; 0 while the account has no password (stub accounts). */
  verifier_set_at: number;
  created_at: number;
  /** Preferred languages from Accept-Language at sign-up, for emails. */
  locale: string | null;
  /** Set when the account must change its password before use. */
  locked_at: number | null;
  /** Set when the account may no longer sign in. */
  disabled_at: number | null;
  metrics_opt_out_at: number | null;
  /** Bumped by profile and password changes (relying parties refresh cached profiles). */
  profile_changed_at: number;
  /** When kB last changed (sign-up, reset without recovery key). */
  keys_changed_at: number;
  /** The v2 salt (quickStretchV2 prefix + 32 hex); null for v1-only accounts. */
  client_salt: string | null;
  /** verifyHash of the v2 authPW (same authSalt). */
  verify_hash_v2: string | null;
  /** kB wrapped under the v2 verifier. */
  wrap_wrap_kb_v2: string | null;
  /** The OAuth client that created the account as a stub; only its access tokens may set the first password. Null for sign-ups. */
  stub_client_id: string | null;
  /** The address the v1 password was stretched with, once the primary moved away from it (set_primary); null while it is the primary. */
  password_email: string | null;
}

export interface EmailsTable {
  /** The address lower-cased: one account per address. */
  normalized_email: string;
  /** The address as typed. */
  email: string;
  uid: string;
  /** Confirmation code of this address. */
  email_code: string;
  is_verified: number;
  /** 1 for the account's primary address. */
  is_primary: number;
  verified_at: number | null;
  created_at: number;
  /** HMAC of the 6-digit code that proves a secondary address; null when none is pending. */
  code_hash: string | null;
  code_expires_at: number | null;
  /** Tries left for the pending code. */
  code_tries: number | null;
  /** Wrong codes this address has seen across resends (a resend does not reset it). */
  code_failures: Generated<number>;
}

/** Wrong codes of any kind per account, in a window (issue 9, hole 3). */
export interface AccountCodeFailuresTable {
  uid: string;
  failures: number;
  window_started_at: number;
}

/** Wrong password-reset codes per account, in a window: a budget apart from account_code_failures (issue 22). */
export type AccountResetCodeFailuresTable = AccountCodeFailuresTable;

/** The account-core domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface AccountCoreTables {
  accounts: AccountsTable;
  emails: EmailsTable;
  account_code_failures: AccountCodeFailuresTable;
  account_reset_code_failures: AccountResetCodeFailuresTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends AccountCoreTables {}
}
