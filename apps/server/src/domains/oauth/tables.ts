import type { Generated } from 'kysely';
// The oauth domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

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

/** The oauth domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface OauthTables {
  oauth_clients: OauthClientsTable;
  oauth_access_tokens: OauthAccessTokensTable;
  oauth_codes: OauthCodesTable;
  oauth_refresh_tokens: OauthRefreshTokensTable;
  oauth_retired_refresh_tokens: OauthRetiredRefreshTokensTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends OauthTables {}
}
