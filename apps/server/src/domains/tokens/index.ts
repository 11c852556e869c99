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

/** Finds a row and refuses it once `lifetime` seconds have passed since it was made. */
function within<T extends { createdAt: number }>(find: (id: string) => Promise<T | null>, lifetimeSeconds: number) {
  return async (id: string, now: number) => {
    const row = await find(id);
    return row && now - row.createdAt <= lifetimeSeconds * 1000 ? row : null;
  };
}

const authKey = (c: { authKey: string }) => c.authKey;

export function createTokensDomain({ db, config }: TokensDeps): Domain<TokensService> {
  const keyFetchToken: TokenStrategy<KeyFetchToken> = {
    kind: 'keyFetchToken',
    description: 'A key fetch token (single use).',
    find: within((id) => store.findKeyFetchToken(db, id), config.keyFetchLifetime),
    authKey,
  };
  const accountResetToken: TokenStrategy<AccountResetToken> = {
    kind: 'accountResetToken',
    description: 'An account reset token (single use: spent even when the request fails).',
    find: within((id) => store.findAccountResetToken(db, id), config.accountResetLifetime),
    authKey,
    consume: (id) => store.deleteAccountResetToken(db, id),
  };
  const passwordForgotToken: TokenStrategy<PasswordForgotToken> = {
    kind: 'passwordForgotToken',
    description: 'A password forgot token.',
    find: within((id) => store.findPasswordForgotToken(db, id), config.passwordForgotLifetime),
    authKey,
  };
  const passwordChangeToken: TokenStrategy<PasswordChangeToken> = {
    kind: 'passwordChangeToken',
    description: 'A password change token (single use: spent even when the request fails).',
    find: within((id) => store.findPasswordChangeToken(db, id), config.passwordChangeLifetime),
    authKey,
    consume: (id) => store.deletePasswordChangeToken(db, id),
  };
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
