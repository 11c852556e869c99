// The newsletters domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** The newsletters an account subscribed to (spec 2 §3's enum); no row: none. */
export interface AccountNewslettersTable {
  uid: string;
  /** JSON array of newsletter names, sorted. */
  newsletters: string;
  updated_at: number;
}

/** The newsletters domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface NewslettersTables {
  account_newsletters: AccountNewslettersTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends NewslettersTables {}
}
