import { routesOf, type Domain } from '../../domain.js';
import { emailRoutes } from './routes.js';
import { Confirmations, type ConfirmationDeps } from './service.js';
export { emailsDomain } from './manifest.js';

// The emails domain: the confirmation loops (sign-up and sign-in, by link or 6-digit code) and the
// bounce log the mailer consults before sending.

export { Confirmations } from './service.js';
export { bounceLog } from './store.js';

/** What the emails domain is built from: see ConfirmationDeps in service.ts. */
export type EmailsDomainDeps = ConfirmationDeps;

export function createEmailsDomain(deps: EmailsDomainDeps): Domain<Confirmations> {
  const confirmations = new Confirmations(deps);
  // No account rows: the bounce log is keyed by address, and an address's bounces outlive the
  // account (a deleted account's address must not be mailed into a known-bad mailbox again).
  return { name: 'emails', service: confirmations, routes: routesOf(emailRoutes, { confirmations }) };
}
