// The recovery-keys domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** An account's recovery key (protocol.md §4.8): at most one per account, made and kept by the person. */
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

/** The recovery-keys domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface RecoveryKeysTables {
  recovery_keys: RecoveryKeysTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends RecoveryKeysTables {}
}
