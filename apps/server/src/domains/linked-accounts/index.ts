import { routesOf, type Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { LinkedAccountsConfig } from './config.js';
import { linkedAccountRoutes } from './routes.js';
import { LinkedAccountsService, type LinkedAccountsDeps } from './service.js';
import { appleProvider } from './providers/apple.js';
import { googleProvider } from './providers/google.js';
import type { ProviderEvent } from './providers/port.js';
export { linkedAccountsDomain } from './manifest.js';

// The linked-accounts domain: sign-in with Google and Apple (id_tokens checked by the adapters of
// its provider port, providers/), the links, the sessions they open, unlinking and Apple's
// notifications. Its rows go with the account and with the sessions they describe.

export { checkLinkedAccountsConfig, linkedAccountsConfig, type LinkedAccountsConfig } from './config.js';
export { LinkedAccountsService, type AddressClaims, type SecondFactor } from './service.js';
export { PROVIDERS, type IdentityProvider, type Provider, type ProviderEvent, type ProviderIdentity } from './providers/port.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    /** What Apple's signed notification says happened (verified: Apple's keys, our client id, at most a day old). */
    appleNotification: ProviderEvent;
  }
}

export interface LinkedAccountsDomainDeps extends Omit<LinkedAccountsDeps, 'providers' | 'appleNotifications' | 'toleranceSeconds'> {
  config: LinkedAccountsConfig;
}

export function createLinkedAccountsDomain(deps: LinkedAccountsDomainDeps): Domain<LinkedAccountsService> {
  const { config } = deps;
  const oidc = { clock: deps.clock, toleranceSeconds: config.clockToleranceSeconds };
  const providers = {
    google: googleProvider({ enabled: config.googleEnabled, clientIds: config.googleClientIds, issuers: config.googleIssuers, jwksUrl: config.googleJwksUrl }, oidc),
    apple: appleProvider({ enabled: config.appleEnabled, clientIds: config.appleClientIds, issuers: config.appleIssuers, jwksUrl: config.appleJwksUrl }, oidc),
  };
  const linked = new LinkedAccountsService({
    ...deps, providers, appleNotifications: config.appleNotificationsEnabled, toleranceSeconds: config.clockToleranceSeconds,
  });
  deps.sessions.onSessionEnded((db, _uid, sessionId) => linked.sessionEnded(db, sessionId));
  // Apple's notifications prove themselves: the body's `payload` is a JWT Apple signed. Checked
  // before validation, so a body without one is refused like a request without its token.
  const appleNotification: TokenStrategy<ProviderEvent> = {
    kind: 'signed',
    description: 'A server-to-server notification Apple signed: the body\'s `payload` JWT, checked against Apple\'s keys, issuer and our client ids, at most a day old.',
    fromRequest: (request) => {
      const payload = (request.body as { payload?: unknown } | undefined)?.payload;
      return typeof payload === 'string' ? payload : null;
    },
    find: (jwt) => linked.verifyAppleNotification(jwt),
  };
  return {
    name: 'linked-accounts',
    service: linked,
    routes: routesOf(linkedAccountRoutes, { linked }),
    strategies: { appleNotification },
    hooks: {
      onAccountDeleted: linked.accountDeleted,
      // The sessions other than the one kept end (domains/sessions' own hook deletes them).
      onPasswordChanged: (trx, uid, keep) => linked.sessionsEnded(trx, uid, keep.sessionTokenId),
      onPasswordReset: (trx, uid) => linked.sessionsEnded(trx, uid, null),
    },
  };
}
