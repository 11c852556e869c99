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

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends AccountsTables {}
}
