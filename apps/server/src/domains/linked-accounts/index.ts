import { routesOf, type Domain } from '../../domain.js';
import type { LinkedAccountsConfig } from './config.js';
import { linkedAccountRoutes } from './routes.js';
import { LinkedAccountsService, type LinkedAccountsDeps } from './service.js';
import { ProviderTokens } from './verify.js';
export { linkedAccountsDomain } from './manifest.js';

// The linked-accounts domain: sign-in with Google and Apple (provider id_tokens checked with jose
// against the providers' keys), the links, the sessions they open, unlinking and Apple's
// notifications. Its rows go with the account and with the sessions they describe.

export { checkLinkedAccountsConfig, linkedAccountsConfig, type LinkedAccountsConfig } from './config.js';
export { LinkedAccountsService, type AddressClaims, type SecondFactor } from './service.js';
export { PROVIDERS, type Provider } from './verify.js';

export interface LinkedAccountsDomainDeps extends Omit<LinkedAccountsDeps, 'tokens' | 'appleNotifications' | 'toleranceSeconds'> {
  config: LinkedAccountsConfig;
}

export function createLinkedAccountsDomain(deps: LinkedAccountsDomainDeps): Domain<LinkedAccountsService> {
  const { config } = deps;
  const tokens = new ProviderTokens({
    clock: deps.clock, toleranceSeconds: config.clockToleranceSeconds,
    providers: {
      google: { enabled: config.googleEnabled, clientIds: config.googleClientIds, issuers: config.googleIssuers, jwksUrl: config.googleJwksUrl },
      apple: { enabled: config.appleEnabled, clientIds: config.appleClientIds, issuers: config.appleIssuers, jwksUrl: config.appleJwksUrl },
    },
  });
  const linked = new LinkedAccountsService({
    ...deps, tokens, appleNotifications: config.appleNotificationsEnabled, toleranceSeconds: config.clockToleranceSeconds,
  });
  deps.sessions.onSessionEnded((db, _uid, sessionId) => linked.sessionEnded(db, sessionId));
  return {
    name: 'linked-accounts',
    service: linked,
    routes: routesOf(linkedAccountRoutes, { linked }),
    hooks: {
      onAccountDeleted: linked.accountDeleted,
      // The sessions other than the one kept end (domains/sessions' own hook deletes them).
      onPasswordChanged: (trx, uid, keep) => linked.sessionsEnded(trx, uid, keep.sessionTokenId),
      onPasswordReset: (trx, uid) => linked.sessionsEnded(trx, uid, null),
    },
  };
}
