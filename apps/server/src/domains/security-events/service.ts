import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { SecurityEventName } from './names.js';
import { networkOf } from './network.js';
import { deleteEventsBefore, insertEvent, listEvents, pruneEventsOfName } from './store.js';

/** One event as a service reports it. */
export interface SecurityEvent {
  name: SecurityEventName;
  /** The request it came from: only its network is kept (see network.ts). */
  ctx: Pick<RequestContext, 'ip'>;
  /** Whether it came from a confirmed session, or itself proves the mailbox or the password. */
  verified: boolean;
  /** Details the owner may want (how a confirmation came, which session ended); never secrets. */
  additionalInfo?: Record<string, string>;
}

/**
 * What services that record security events depend on. `record` takes the executor the change
 * runs on, so the event commits or rolls back with it; an event that must outlive a failing
 * request (a wrong password) is recorded on the database itself, before the error is thrown.
 */
export interface SecurityEvents {
  record(db: Executor, uid: string, event: SecurityEvent): Promise<void>;
}

export interface SecurityEventsDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** Events older than this are not listed, and the sweep deletes them. */
  retentionMs: number;
  /** Newest events kept per account and name. */
  maxPerName: number;
  /** Where a request came from (domains/geo); none: events have no location. */
  locate?: (ip: string) => EventLocation | null;
}

/** A location as domains/geo gives it. */
export type EventLocation = Partial<Record<'city' | 'country' | 'countryCode' | 'state' | 'stateCode', string>>;

export class SecurityEventsService implements SecurityEvents {
  constructor(private readonly deps: SecurityEventsDeps) {}

  async record(db: Executor, uid: string, event: SecurityEvent): Promise<void> {
    await insertEvent(db, {
      uid, name: event.name, verified: event.verified, createdAt: this.deps.clock.now(),
      ipNetwork: networkOf(event.ctx.ip), additionalInfo: event.additionalInfo ?? null,
      location: this.deps.locate?.(event.ctx.ip) ?? null,
    });
    await pruneEventsOfName(db, uid, event.name, this.deps.maxPerName);
  }

  /** GET /securityEvents: the account's events within the retention period, newest first. */
  async list(uid: string) {
    const events = await listEvents(this.deps.db, uid, this.deps.clock.now() - this.deps.retentionMs);
    return events.map((e) => ({
      name: e.name as SecurityEventName,
      verified: e.verified,
      createdAt: e.createdAt,
      ...(e.ipNetwork !== null ? { ipNetwork: e.ipNetwork } : {}),
      ...(e.additionalInfo !== null ? { additionalInfo: e.additionalInfo } : {}),
      ...(e.location !== null ? { location: e.location } : {}),
    }));
  }

  /** Deletes every account's events older than the retention period; how many. */
  sweep(): Promise<number> {
    return deleteEventsBefore(this.deps.db, this.deps.clock.now() - this.deps.retentionMs);
  }
}
