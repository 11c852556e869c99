import type { Generated } from 'kysely';
// The security-events domain's tables (floors.json): their row types for Kysely, with the one-line notes the
// portal's database-structure page shows (scripts/generate/portal-database.mjs reads them here).
// Columns are snake_case, binary values lowercase hex, times milliseconds, booleans 0/1 (storage/schema.ts).

/** An account's security-relevant events (GET /v1/securityEvents), kept SECURITY_EVENTS_RETENTION_DAYS. */
export interface SecurityEventsTable {
  /** Counts in insertion order: events of the same millisecond list newest first by it. */
  id: Generated<number>;
  uid: string;
  /** What happened: a name some domain's manifest declares (`account.login`, `session.destroy`, …). */
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

/** The security-events domain's tables by name: the part of the Database (storage/schema.ts) its stores use. */
export interface SecurityEventsTables {
  security_events: SecurityEventsTable;
}

// The Database type is every composed domain's tables: this domain adds its own from its folder.
declare module '../../storage/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Database extends SecurityEventsTables {}
}
