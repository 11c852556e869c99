import type { Generated } from 'kysely';
// The sessions domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

export interface SessionTokensTable {
  /** Where the session was opened (JSON of domains/geo's Location), when the location service knew; migration 0016. */
  location?: string | null;
  /** HMAC-SHA256, under a key derived from AUTH_SECRET, of the token id (HKDF(sessionToken, "sessionToken")[0:32], the Bearer and Hawk id); also the session's handle. Neither token nor id is stored. */
  id_hash: string;
  /** The Hawk authKey (HKDF bytes 32–64) XOR a pad that needs AUTH_SECRET and the unstored id. */
  sealed_auth_key: string;
  /** 1 once the token was used with Hawk: Bearer is refused for it from then on. */
  hawk_only: Generated<number>;
  uid: string;
  created_at: number;
  /** Last use, written at most hourly; idle sessions without a device expire from it. */
  last_access_time: number;
  /** When the password was last proven on this session (login, reauth). */
  auth_at: number;
  ua_browser: string | null;
  ua_browser_version: string | null;
  ua_os: string | null;
  ua_os_version: string | null;
  /** desktop, mobile or tablet. */
  ua_device_type: string | null;
  ua_form_factor: string | null;
  /** Set while the session is unconfirmed (protocol tokenVerificationId); an emailed link carries it. */
  token_verification_id: string | null;
  /** 1 when the session must be confirmed before key-bearing use (keys were requested). */
  must_verify: number;
  /** How it was confirmed: 0 email, 1 email-2fa, 2 totp-2fa, 3 recovery-code. */
  verification_method: number | null;
  verified_at: number | null;
  /** Why confirmation is pending: signup, login or change_password. */
  verification_reason: string | null;
  /** HMAC of the 6-digit code that confirms this session (keyed by the server secret). */
  code_hash: string | null;
  code_expires_at: number | null;
  /** Wrong codes still allowed before the code is void. */
  code_tries: number | null;
  /** Wrong codes of this session across every code it was sent (a resend does not reset it). */
  code_failures: Generated<number>;
  /** 1 while a device is registered on the session: it then never expires for being idle. */
  has_device: Generated<number>;
}

/** The sessions domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface SessionsTables {
  session_tokens: SessionTokensTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends SessionsTables {}
}
