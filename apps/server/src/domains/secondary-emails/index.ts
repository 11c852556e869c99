import { routesOf, type Domain } from '../../domain.js';
import { secondaryEmailRoutes } from './routes.js';
import { SecondaryEmails, type SecondaryEmailsDeps } from './service.js';
export { secondaryEmailsDomain } from './manifest.js';

// The secondary-emails domain: an account's addresses besides the primary (spec 1 §7 "Emails").
// Its rows live in the account core's `emails` table, so account deletion removes them there (the
// account core deletes every address of the account); this domain declares no lifecycle hooks.
// The MFA variants (/mfa/recovery_email/*) are the same routes declared a second time with an MFA
// token scoped `mfa:email` (routes.ts): add, destroy, setPrimary, resendCode and verifyCode take
// the account's uid, whatever strategy authenticated the request.

export { secondaryEmailsConfig } from './config.js';
export { SecondaryEmails, type AddressView } from './service.js';

export type SecondaryEmailsDomainDeps = SecondaryEmailsDeps;

export function createSecondaryEmailsDomain(deps: SecondaryEmailsDomainDeps): Domain<SecondaryEmails> {
  const emails = new SecondaryEmails(deps);
  return { name: 'secondary-emails', service: emails, routes: routesOf(secondaryEmailRoutes, { emails }) };
}
