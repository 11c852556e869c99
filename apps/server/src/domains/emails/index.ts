import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { routesOf, type Domain } from '../../domain.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Database } from '../../storage/schema.js';
import type { AccountRecords } from '../accounts/index.js';
import type { SessionsService } from '../sessions/index.js';
import { emailRoutes } from './routes.js';
import { Confirmations } from './service.js';

// The emails domain: the confirmation loops (sign-up and sign-in, by link or 6-digit code) and the
// bounce log the mailer consults before sending.

export { Confirmations } from './service.js';
export { bounceLog } from './store.js';

export interface EmailsDomainDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  sessions: SessionsService;
  /** Key of the codes' HMAC. */
  secret: string;
  codeLifetimeMs: number;
  codeTries: number;
  /** Builds the link of the auth server's /verify_email page. */
  verifyLink(params: Record<string, string | undefined>): string;
}

export function createEmailsDomain(deps: EmailsDomainDeps): Domain<Confirmations> {
  const confirmations = new Confirmations(deps);
  // No account rows: the bounce log is keyed by address, and an address's bounces outlive the
  // account (a deleted account's address must not be mailed into a known-bad mailbox again).
  return { name: 'emails', service: confirmations, routes: routesOf(emailRoutes, { confirmations }) };
}
