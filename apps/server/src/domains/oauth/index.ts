import type { Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { Executor } from '../../storage/executor.js';
import { OAuthService } from './service.js';
import { deleteAccessTokensOf, findAccessToken, type AccessToken } from './store.js';

// The oauth domain: clients, access tokens and the OAuth bearer strategy. Password changes,
// resets and account deletion revoke every access token of the account.

export { OAuthService } from './service.js';
export type { AccessToken, OAuthClient } from './store.js';

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
  return {
    name: 'oauth',
    service: new OAuthService(),
    strategies: { oauthToken },
    hooks: {
      onAccountDeleted: deleteAccessTokensOf,
      onPasswordChanged: (trx, uid) => deleteAccessTokensOf(trx, uid),
      onPasswordReset: deleteAccessTokensOf,
    },
  };
}
