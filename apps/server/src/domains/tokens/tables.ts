import type { Generated } from 'kysely';
// The tokens domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

export interface KeyFetchTokensTable {
  /** HMAC of the id HKDF(keyFetchToken, "keyFetchToken")[0:32] under a key derived from AUTH_SECRET. */
  id_hash: string;
  /** The Hawk authKey, sealed as in session_tokens. */
  sealed_auth_key: string;
  /** 1 once used with Hawk. */
  hawk_only: Generated<number>;
  uid: string;
  /** kA ‖ wrapKb XOR-encrypted and MACed under the token's bundleKey (96 bytes). */
  key_bundle: string;
  /** The id_hash of the session whose confirmation gates this token; null when created already confirmed. */
  session_id_hash: string | null;
  created_at: number;
}

/** accountReset, passwordForgot and passwordChange tokens share this shape. */
export interface SingleUseTokensTable {
  /** HMAC of the id HKDF(token, "<tokenType>")[0:32] under a key derived from AUTH_SECRET. */
  id_hash: string;
  /** The Hawk authKey, sealed as in session_tokens. */
  sealed_auth_key: string;
  /** 1 once used with Hawk. */
  hawk_only: Generated<number>;
  uid: string;
  created_at: number;
}

export interface AccountResetTokensTable extends SingleUseTokensTable {
  /** Second factor proven during the reset, if any. */
  verification_method: number | null;
}

export interface PasswordForgotTokensTable extends SingleUseTokensTable {
  /** HMAC of the emailed passCode (8 or 16 digits); the code itself is only ever in the email. */
  passcode_hash: string;
  /** Wrong codes still allowed; the token is deleted at 0. */
  tries: number;
  verification_method: number | null;
}

export type PasswordChangeTokensTable = SingleUseTokensTable;

/** The tokens domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface TokensTables {
  key_fetch_tokens: KeyFetchTokensTable;
  account_reset_tokens: AccountResetTokensTable;
  password_forgot_tokens: PasswordForgotTokensTable;
  password_change_tokens: PasswordChangeTokensTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends TokensTables {}
}
