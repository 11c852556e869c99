// Table types for Kysely. Columns are snake_case; binary values (ids, keys, hashes) are lowercase
// hex strings, times are milliseconds since the epoch, booleans are 0/1 integers (the one form all
// three dialects share). Domain code never sees these rows: each domain's store.ts maps them once.
// The one-line notes below are the "Notes" column of the portal's database-structure page.
import type { Generated } from 'kysely';
import type { JobsTable } from '../jobs/tables.js';

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

export interface OauthClientsTable {
  /** 8 random bytes. */
  id: string;
  name: string;
  image_uri: string;
  /** The one registered redirect URI (exact match). */
  redirect_uri: string;
  /** SHA-256 of the client secret; null for public clients. */
  hashed_secret: string | null;
  /** The previous secret's hash, during rotation. */
  hashed_secret_previous: string | null;
  trusted: number;
  public_client: number;
  can_grant: number;
  /** Space-separated scopes the client may request. */
  allowed_scopes: string;
  created_at: number;
  /** Space-separated registered redirect URIs, each matched exactly (0017); `redirect_uri` is the first. */
  redirect_uris: string | null;
  /** 1: RFC 8252 loopback redirects — a registered http://127.0.0.1 (or [::1], localhost) URI matches any port. */
  local_redirects: Generated<number>;
  /** Seconds an access token lives (at most 86400). */
  access_token_ttl: Generated<number>;
  /** Seconds a refresh token lives unused; 0: until revoked. */
  refresh_token_ttl: Generated<number>;
  /** 1: each refresh grant issues a new refresh token and revokes the one used. */
  rotate_refresh_tokens: Generated<number>;
  /** 1: id_tokens, userinfo, introspection and /verify show this client a pairwise `sub` (0018). */
  pairwise_subjects: Generated<number>;
  /** Seconds after which pairwise subjects change; 0: never. */
  pairwise_rotation: Generated<number>;
  /** 1: access tokens are RS256 JWTs (RFC 9068) instead of opaque hex. */
  jwt_access_tokens: Generated<number>;
  /** Space-separated resource URIs the client may name at /token (RFC 8707; 0021); null: none. */
  allowed_resources: string | null;
}

export interface OauthCodesTable {
  /** SHA-256 of the code's bytes. */
  code_hash: string;
  client_id: string;
  uid: string;
  scope: string;
  /** When the person signed in (ms). */
  auth_at: number;
  /** Space-separated authentication methods (pwd, email, otp). */
  amr: string;
  aal: number;
  offline: number;
  /** PKCE S256 challenge, or null. */
  code_challenge: string | null;
  /** The redirect_uri the request named, which the token request must repeat; null when none was named. */
  redirect_uri: string | null;
  nonce: string | null;
  keys_jwe: string | null;
  created_at: number;
  expires_at: number;
  /** Set on first use; the row stays (until expiry) to catch a replay. */
  used_at: number | null;
  issued_access_hash: string | null;
  issued_refresh_hash: string | null;
  /** The authorization request's ppid_seed (0–1024), or null (0018). */
  ppid_seed: number | null;
}

export interface OauthRefreshTokensTable {
  /** SHA-256 of the token's bytes. */
  token_hash: string;
  client_id: string;
  uid: string;
  scope: string;
  auth_at: number;
  amr: string;
  aal: number;
  created_at: number;
  last_used_at: number;
  /** 0: until revoked. */
  expires_at: number;
  /** The authorization grant's id, shared with its access tokens (0019; null for older rows). */
  grant_id: string | null;
}

/** A refresh token replaced by a rotation or a token exchange (0020): presenting it again revokes its grant. */
export interface OauthRetiredRefreshTokensTable {
  /** SHA-256 of the retired token's bytes. */
  token_hash: string;
  /** The grant the token belonged to: what a reuse revokes. */
  grant_id: string;
  uid: string;
  client_id: string;
  /** When a rotation or exchange replaced it (ms); pruned 90 days later. */
  retired_at: number;
}

export interface OauthAccessTokensTable {
  /** SHA-256 of the opaque token (protocol.md §8.1). */
  token_hash: string;
  client_id: string;
  uid: string;
  /** Space-separated scopes. */
  scope: string;
  created_at: number;
  expires_at: number;
  profile_changed_at: number;
  /** The subject the client was shown when it is not the uid: a pairwise id (0018). */
  subject: string | null;
  /** The authorization grant it was minted from: revoking the grant's refresh token deletes it (0019; null for older rows). */
  grant_id: string | null;
  /** How the sign-in behind it was authenticated, space-separated (`pwd email`, `pwd otp`; 0021; null for older rows and stub accounts' tokens). */
  amr: string | null;
  /** That sign-in's assurance level, 1 or 2 (0021; null with `amr`). */
  aal: number | null;
}

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

export interface EmailBouncesTable {
  normalized_email: string;
  /** hard, soft or complaint: hard and complaint stop all mail; soft pauses it. */
  bounce_type: string;
  /** What the mail server said. */
  detail: string | null;
  created_at: number;
}

/** Wrong codes of any kind per account, in a window (issue 9, hole 3). */
/** One live unblock code per account (protocol.md §4.4), as an HMAC. */
export interface UnblockCodesTable {
  uid: string;
  code_hash: string;
  created_at: number;
}

export interface AccountCodeFailuresTable {
  uid: string;
  failures: number;
  window_started_at: number;
}

/** Wrong password-reset codes per account, in a window: a budget apart from account_code_failures (issue 22). */
export type AccountResetCodeFailuresTable = AccountCodeFailuresTable;

/** An account's security-relevant events (GET /v1/securityEvents), kept SECURITY_EVENTS_RETENTION_DAYS. */
export interface SecurityEventsTable {
  /** Counts in insertion order: events of the same millisecond list newest first by it. */
  id: Generated<number>;
  uid: string;
  /** What happened: a name of domains/security-events/names.ts (`account.login`, `session.destroy`, …). */
  name: string;
  /** 1 when it came from a confirmed session, or itself proved the mailbox or the password. */
  verified: number;
  created_at: number;
  /** The request's network in CIDR notation (IPv4 /24, IPv6 /48); the full address is never stored. */
  ip_network: string | null;
  /** A JSON object of strings with details (how a confirmation came, which session ended); null when none. */
  additional_info: string | null;
  /** Where the request came from (JSON of domains/geo's Location), when the location service knew; migration 0016. */
  location?: string | null;
}

/** A relying party's installation on one session (spec 1 §3): what it is called, where to push to it, what commands it takes. */
export interface DevicesTable {
  uid: string;
  /** 16 random bytes, made by the server at registration. */
  id: string;
  /** The handle (id_hash) of the session it is registered on; the device goes with it. One device per session. */
  session_id_hash: string | null;
  /** Display-safe text chosen by the client, at most 255 characters. */
  name: string | null;
  /** desktop, mobile, tablet, vr, tv or another word of at most 16 characters. */
  type: string | null;
  created_at: number;
  /** The Web Push subscription endpoint (https, on an allowed push service host). */
  push_callback: string | null;
  /** The subscription's P-256 public key (base64url); pushes are encrypted to it (RFC 8291). */
  push_public_key: string | null;
  /** The subscription's 16-byte auth secret (base64url). */
  push_auth_key: string | null;
  /** 1 once the push service answered 404 or 410 for the endpoint; 0 again when the client registers a new subscription. */
  push_endpoint_expired: Generated<number>;
  /** A JSON object: command name → the data the device publishes for it (at most 2048 characters each). */
  available_commands: string | null;
}

/** A command one device sent another (POST /account/devices/invoke_command), until read past or expired. */
export interface DeviceCommandsTable {
  /** The command's index: counts in insertion order. */
  idx: Generated<number>;
  uid: string;
  /** The target device. */
  device_id: string;
  /** One of the names the target lists in its availableCommands. */
  command: string;
  /** The sender's JSON payload (at most 2048 characters), usually encrypted to the target's keys. */
  payload: string;
  /** The sending device's id; null when the sender has no device. */
  sender: string | null;
  created_at: number;
  /** created_at + the ttl asked for: past it the command is never delivered. */
  expires_at: number;
}

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

/** An account's recovery key (protocol.md §4.8): at most one per account, made and kept by the person. */
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

export interface RecoveryKeysTable {
  uid: string;
  /** SHA-256 of the key's fingerprint (recoveryKeyId): the fingerprint is what a reset presents, so only its hash is kept. */
  recovery_key_id_hash: string;
  /** kB encrypted under the key (a compact JWE, at most 1024 characters): the server cannot open it. */
  recovery_data: string;
  /** The person's note on where the key is kept (at most 255 characters); shown when they need the key. */
  hint: string | null;
  /** 1 once the key counts; a key made with `enabled: false` waits for /recoveryKey/verify. */
  enabled: number;
  created_at: number;
  /** When /recoveryKey/verify (or a create with `enabled: true`) confirmed it. */
  verified_at: number | null;
}

/** A Google or Apple identity linked to an account (POST /linked_account/login). One per provider per account. */
export interface LinkedAccountsTable {
  uid: string;
  /** `google` or `apple`. */
  provider: string;
  /** The provider's stable id of the person (the id_token's `sub`): one account per subject. */
  subject: string;
  /** The address the provider last reported (for Apple possibly a private relay address). */
  email: string | null;
  /** 1 while the link signs in; 0 when the provider revoked it (Apple's consent-revoked). */
  enabled: Generated<number>;
  created_at: number;
  /** The last sign-in through the link (ms). */
  auth_at: number;
}

/** A session opened by a linked sign-in, and through which provider; goes with its session. */
export interface LinkedAccountSessionsTable {
  /** The session's handle. */
  session_id_hash: string;
  uid: string;
  provider: string;
}

/** Provider id_tokens already used to sign in: each is single-use until it expires. */
export interface LinkedAccountTokensTable {
  /** SHA-256 of the id_token (hex). */
  token_hash: string;
  /** The token's own `exp` (ms): past it the token is refused anyway, and the row is deleted. */
  expires_at: number;
}

/** Support tickets (POST /support/ticket), kept until forwarded to the helpdesk and then as a record. */
export interface SupportTicketsTable {
  /** 16 random bytes (hex): the `ticket` of the reply and of the helpdesk webhook. */
  id: string;
  /** The account, when a session sent it; null when the support secret did. */
  uid: string | null;
  email: string | null;
  /** The ticket's fields (productName, topic, message, …) as JSON. */
  fields: string;
  /** `pending` until the helpdesk webhook accepted it, then `forwarded`. */
  status: string;
  created_at: number;
  forwarded_at: number | null;
}

/** The newsletters an account subscribed to (spec 2 §3's enum); no row: none. */
export interface AccountNewslettersTable {
  uid: string;
  /** JSON array of newsletter names, sorted. */
  newsletters: string;
  updated_at: number;
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
  oauth_codes: OauthCodesTable;
  oauth_refresh_tokens: OauthRefreshTokensTable;
  oauth_retired_refresh_tokens: OauthRetiredRefreshTokensTable;
  password_forgot_otps: PasswordForgotOtpsTable;
  email_bounces: EmailBouncesTable;
  account_code_failures: AccountCodeFailuresTable;
  account_reset_code_failures: AccountResetCodeFailuresTable;
  unblock_codes: UnblockCodesTable;
  security_events: SecurityEventsTable;
  devices: DevicesTable;
  device_commands: DeviceCommandsTable;
  mfa_otp_codes: MfaOtpCodesTable;
  recovery_keys: RecoveryKeysTable;
  recovery_phones: RecoveryPhonesTable;
  recovery_phone_codes: RecoveryPhoneCodesTable;
  totp: TotpTable;
  recovery_codes: RecoveryCodesTable;
  linked_accounts: LinkedAccountsTable;
  linked_account_sessions: LinkedAccountSessionsTable;
  linked_account_tokens: LinkedAccountTokensTable;
  support_tickets: SupportTicketsTable;
  account_newsletters: AccountNewslettersTable;
  /** The job queue (jobs/tables.ts). */
  jobs: JobsTable;
}
