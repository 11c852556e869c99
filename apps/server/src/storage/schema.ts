// Table types for Kysely. Columns are snake_case; binary values are lowercase hex strings, times are
// milliseconds since the epoch, booleans are 0/1 integers (the one form all three dialects share).
// Domain code never sees these rows: each domain's store.ts maps them once.

export interface AccountsTable {
  uid: string;
  /** The address the current password was stretched with (v1 salt): the "original" email. */
  email: string;
  email_code: string;
  email_verified: number;
  k_a: string;
  wrap_wrap_kb: string;
  auth_salt: string;
  verify_hash: string;
  verifier_version: number;
  /** 0 while the account has no password (stub accounts). */
  verifier_set_at: number;
  created_at: number;
  locale: string | null;
  locked_at: number | null;
  disabled_at: number | null;
  metrics_opt_out_at: number | null;
  profile_changed_at: number;
  keys_changed_at: number;
  client_salt: string | null;
  verify_hash_v2: string | null;
  wrap_wrap_kb_v2: string | null;
}

export interface EmailsTable {
  normalized_email: string;
  email: string;
  uid: string;
  email_code: string;
  is_verified: number;
  is_primary: number;
  verified_at: number | null;
  created_at: number;
}

export interface SessionTokensTable {
  token_id: string;
  /** Hawk MAC key derived from the token; the token itself is never stored. */
  auth_key: string;
  uid: string;
  created_at: number;
  last_access_time: number;
  auth_at: number;
  ua_browser: string | null;
  ua_browser_version: string | null;
  ua_os: string | null;
  ua_os_version: string | null;
  ua_device_type: string | null;
  ua_form_factor: string | null;
  /** Set while the session is unverified (protocol.md §2.3: tokenVerificationId). */
  token_verification_id: string | null;
  must_verify: number;
  verification_method: number | null;
  verified_at: number | null;
  /** Why confirmation is pending: signup, login or change_password. */
  verification_reason: string | null;
  /** SHA-256 of the 6-digit code that confirms this session, its expiry and tries left. */
  code_hash: string | null;
  code_expires_at: number | null;
  code_tries: number | null;
}

export interface KeyFetchTokensTable {
  token_id: string;
  auth_key: string;
  uid: string;
  key_bundle: string;
  /** The session whose verification gates this token; null when created already verified. */
  session_token_id: string | null;
  created_at: number;
}

/** accountReset, passwordForgot and passwordChange tokens share this shape. */
export interface SingleUseTokensTable {
  token_id: string;
  auth_key: string;
  uid: string;
  created_at: number;
}

export interface AccountResetTokensTable extends SingleUseTokensTable {
  verification_method: number | null;
}

export interface PasswordForgotTokensTable extends SingleUseTokensTable {
  /** SHA-256 of the 16-byte passCode; the code itself is only ever in the email. */
  passcode_hash: string;
  tries: number;
  verification_method: number | null;
}

export type PasswordChangeTokensTable = SingleUseTokensTable;

export interface OauthClientsTable {
  id: string;
  name: string;
  image_uri: string;
  redirect_uri: string;
  hashed_secret: string | null;
  hashed_secret_previous: string | null;
  trusted: number;
  public_client: number;
  can_grant: number;
  allowed_scopes: string;
  created_at: number;
}

export interface OauthAccessTokensTable {
  /** SHA-256 of the opaque token (protocol.md §8.1). */
  token_hash: string;
  client_id: string;
  uid: string;
  scope: string;
  created_at: number;
  expires_at: number;
  profile_changed_at: number;
}

export interface PasswordForgotOtpsTable {
  uid: string;
  code_hash: string;
  expires_at: number;
  tries: number;
  created_at: number;
}

export interface EmailBouncesTable {
  normalized_email: string;
  /** hard, soft or complaint. */
  bounce_type: string;
  detail: string | null;
  created_at: number;
}

export interface Database {
  accounts: AccountsTable;
  emails: EmailsTable;
  session_tokens: SessionTokensTable;
  key_fetch_tokens: KeyFetchTokensTable;
  account_reset_tokens: AccountResetTokensTable;
  password_forgot_tokens: PasswordForgotTokensTable;
  password_change_tokens: PasswordChangeTokensTable;
  oauth_clients: OauthClientsTable;
  oauth_access_tokens: OauthAccessTokensTable;
  password_forgot_otps: PasswordForgotOtpsTable;
  email_bounces: EmailBouncesTable;
}
