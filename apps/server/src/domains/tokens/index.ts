import type { Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { Executor } from '../../storage/executor.js';
import type { tokenConfig } from './config.js';
import type { ConfigValues } from '../../config-schema.js';
import { TokensService } from './service.js';
import * as store from './store.js';
import type { AccountResetToken, KeyFetchToken, PasswordChangeToken, PasswordForgotToken } from './store.js';

// The tokens domain: the short-lived onepw tokens, the auth strategies that find them, and their
// removal when the account is deleted or its password changes.

export { tokenConfig } from './config.js';
export { TokensService } from './service.js';
export type { AccountResetToken, KeyFetchToken, PasswordChangeToken, PasswordForgotToken } from './store.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    keyFetchToken: KeyFetchToken;
    accountResetToken: AccountResetToken;
    passwordForgotToken: PasswordForgotToken;
    passwordChangeToken: PasswordChangeToken;
  }
}

export interface TokensDeps {
  db: Executor;
  /** Lifetimes in seconds. */
  config: Pick<ConfigValues<typeof tokenConfig>, 'accountResetLifetime' | 'passwordForgotLifetime' | 'passwordChangeLifetime' | 'keyFetchLifetime'>;
}

/**
 * A short-lived token strategy: finds the row by id and refuses it once `lifetimeSeconds` have
 * passed since it was made; `consume` makes it single use (spent as it authenticates).
 */
function shortLived<T extends { createdAt: number; authKey: string }>(
  kind: TokenStrategy<T>['kind'], description: string, lifetimeSeconds: number,
  find: (id: string) => Promise<T | null>, consume?: (id: string) => Promise<boolean>,
): TokenStrategy<T> {
  return {
    kind, description, authKey: (c) => c.authKey,
    async find(id, now) {
      const row = await find(id);
      return row && now - row.createdAt <= lifetimeSeconds * 1000 ? row : null;
    },
    ...(consume ? { consume } : {}),
  };
}

export function createTokensDomain({ db, config }: TokensDeps): Domain<TokensService> {
  const keyFetchToken = shortLived<KeyFetchToken>('keyFetchToken', 'A key fetch token (single use).',
    config.keyFetchLifetime, (id) => store.findKeyFetchToken(db, id));
  const accountResetToken = shortLived<AccountResetToken>('accountResetToken', 'An account reset token (single use: spent once the request passes schema validation, even when it then fails).',
    config.accountResetLifetime, (id) => store.findAccountResetToken(db, id), (id) => store.deleteAccountResetToken(db, id));
  const passwordForgotToken = shortLived<PasswordForgotToken>('passwordForgotToken', 'A password forgot token.',
    config.passwordForgotLifetime, (id) => store.findPasswordForgotToken(db, id));
  const passwordChangeToken = shortLived<PasswordChangeToken>('passwordChangeToken', 'A password change token (single use: spent once the request passes schema validation, even when it then fails).',
    config.passwordChangeLifetime, (id) => store.findPasswordChangeToken(db, id), (id) => store.deletePasswordChangeToken(db, id));
  return {
    name: 'tokens',
    service: new TokensService(),
    strategies: { keyFetchToken, accountResetToken, passwordForgotToken, passwordChangeToken },
    hooks: {
      onAccountDeleted: (trx, uid) => store.deleteShortLivedTokens(trx, uid),
      // A new password voids every token the old one could still have produced or spent.
      onPasswordChanged: (trx, uid) => store.deleteShortLivedTokens(trx, uid),
      onPasswordReset: (trx, uid) => store.deleteShortLivedTokens(trx, uid),
    },
  };
}
