// The passwords domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

export interface PasswordForgotOtpsTable {
  /** One code per account. */
  uid: string;
  /** HMAC of the 8-digit code of /password/forgot/send_otp. */
  code_hash: string;
  expires_at: number;
  /** Wrong codes still allowed. */
  tries: number;
  created_at: number;
}

/** The passwords domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface PasswordsTables {
  password_forgot_otps: PasswordForgotOtpsTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends PasswordsTables {}
}
