import { routesOf, type Domain } from '../../domain.js';
import { securityEventRoutes } from './routes.js';
import { SecurityEventsService, type SecurityEventsDeps } from './service.js';
import { deleteEventsOf } from './store.js';
export { securityEventsDomain } from './manifest.js';

// The security-events domain: the account's security-relevant events (sign-ins, failed sign-ins,
// confirmations, password changes and resets, sign-outs), recorded by the services where they
// happen through the SecurityEvents interface, and listed to the owner by GET /securityEvents.
// Built before the domains that record, so each gets it as a dependency.

export { securityEventsConfig } from './config.js';
export { SECURITY_EVENTS, type SecurityEventName, type SecurityEventRegistry } from './names.js';
export { networkOf } from './network.js';
export { SecurityEventsService, type SecurityEvent, type SecurityEvents } from './service.js';

export interface SecurityEventsDomainDeps extends SecurityEventsDeps {
  /** Where a failed sweep is reported (it is retried at the next one). */
  warn: (message: string, err: unknown) => void;
  /** Every event name the composed domains declare (the route's enum). */
  names: string[];
}

export interface SecurityEventsDomain extends Domain<SecurityEventsService> {
  /** Stops the sweeps and waits for one that is running. */
  close(): Promise<void>;
}

const FIRST_SWEEP_MS = 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

export function createSecurityEventsDomain(deps: SecurityEventsDomainDeps): SecurityEventsDomain {
  const events = new SecurityEventsService(deps);
  // Expired events of every account go by a sweep: a minute after start (so instances that are
  // redeployed often still sweep), then hourly. Several instances sweeping is harmless.
  let running: Promise<void> | null = null;
  const sweep = () => {
    running ??= events.sweep().then(() => undefined, (err: unknown) => deps.warn('security events not swept', err)).finally(() => {
      running = null;
    });
  };
  const first = setTimeout(sweep, FIRST_SWEEP_MS).unref();
  const every = setInterval(sweep, SWEEP_EVERY_MS).unref();
  return {
    name: 'security-events',
    service: events,
    routes: routesOf(securityEventRoutes, { events, names: deps.names }),
    hooks: { onAccountDeleted: deleteEventsOf },
    async close() {
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
