// The emails domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

export interface EmailBouncesTable {
  normalized_email: string;
  /** hard, soft or complaint: hard and complaint stop all mail; soft pauses it. */
  bounce_type: string;
  /** What the mail server said. */
  detail: string | null;
  created_at: number;
}

/** The emails domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface EmailsTables {
  email_bounces: EmailBouncesTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends EmailsTables {}
}
