import { routesOf, type Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { Executor } from '../../storage/executor.js';
import { oauthRoutes } from './routes.js';
import { OAuthService } from './service.js';
import { deleteAccessTokensOf, findAccessToken, type AccessToken } from './store.js';

// The oauth domain: the clients registry (GET /client/{id}, the start-up file, the admin command),
// access tokens and the OAuth bearer strategy. Password changes, resets and account deletion revoke
// every access token of the account.

export { OAuthService, type ClientInfo } from './service.js';
export type { AccessToken, OAuthClient } from './store.js';
export { ClientRegistrationError, readClientsFile, parseClientsFile, redirectUriMatches, type ClientRegistration } from './clients.js';
export { oauthConfig, type OAuthConfig } from './config.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    oauthToken: AccessToken;
  }
}

export function createOAuthDomain({ db }: { db: Executor }): Domain<OAuthService> {
  const oauthToken: TokenStrategy<AccessToken> = {
    kind: 'oauth',
    description: 'An OAuth access token.',
    async find(token, now) {
      const t = await findAccessToken(db, token);
      return t && t.expiresAt > now ? t : null;
    },
  };
  const service = new OAuthService();
  return {
    name: 'oauth',
    service,
    routes: routesOf(oauthRoutes, { oauth: service, db }),
    strategies: { oauthToken },
    hooks: {
      onAccountDeleted: deleteAccessTokensOf,
      onPasswordChanged: (trx, uid) => deleteAccessTokensOf(trx, uid),
      onPasswordReset: deleteAccessTokensOf,
    },
  };
}
