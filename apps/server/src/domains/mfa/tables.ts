// The mfa domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** The live step-up code of one session and action (POST /mfa/otp/request), and the wrong codes sent for it. */
export interface MfaOtpCodesTable {
  /** The handle (id_hash) of the session the code was sent to; the row goes with the session. */
  session_id_hash: string;
  /** The protected action: 2fa, email, recovery_key, password or passkey. */
  action: string;
  uid: string;
  /** HMAC of the 6-digit code under the server secret, session and action; null once used or voided. */
  code_hash: string | null;
  expires_at: number | null;
  /** Wrong codes still allowed for the live code. */
  tries: number;
  /** Wrong codes of this session and action across every code it was sent (a new code does not reset it). */
  failures: number;
  created_at: number;
}

/** The mfa domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface MfaTables {
  mfa_otp_codes: MfaOtpCodesTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends MfaTables {}
}
