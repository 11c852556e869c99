// The support domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

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

/** The support domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface SupportTables {
  support_tickets: SupportTicketsTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends SupportTables {}
}
