// The accounts domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** One live unblock code per account (protocol.md §4.4), as an HMAC. */
export interface UnblockCodesTable {
  uid: string;
  code_hash: string;
  created_at: number;
}

/** The accounts domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface AccountsTables {
  unblock_codes: UnblockCodesTable;
}
