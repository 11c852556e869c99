import type { Generated } from 'kysely';
// The linked-accounts domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

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

/** The linked-accounts domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface LinkedAccountsTables {
  linked_accounts: LinkedAccountsTable;
  linked_account_sessions: LinkedAccountSessionsTable;
  linked_account_tokens: LinkedAccountTokensTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends LinkedAccountsTables {}
}
