import { appError } from '@tessera/errors';
import type { TokenType } from '@tessera/protocol';
import type { TokenSecrets } from '../../crypto/token-secrets.js';
import type { Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { Executor } from '../../storage/executor.js';
import type { tokenConfig } from './config.js';
import type { ConfigValues } from '../../config-schema.js';
import { forgotTokenProven, TokensService } from './service.js';
import * as store from './store.js';
import type { AccountResetToken, KeyFetchToken, PasswordChangeToken, PasswordForgotToken, ShortLivedTable, StoredToken } from './store.js';
export { tokensDomain } from './manifest.js';

// The tokens domain: the short-lived onepw tokens, the auth strategies that find them, and their
// removal when the account is deleted or its password changes.

export { tokenConfig } from './config.js';
export { forgotTokenProven, TokensService } from './service.js';
export type { AccountResetToken, KeyFetchToken, PasswordChangeToken, PasswordForgotToken } from './store.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    keyFetchToken: KeyFetchToken;
    accountResetToken: AccountResetToken;
    passwordForgotToken: PasswordForgotToken;
    passwordForgotTokenProven: PasswordForgotToken;
    passwordChangeToken: PasswordChangeToken;
  }
}

export interface TokensDeps {
  db: Executor;
  /** The keys token rows are stored under (a row is found by the HMAC of the presented id). */
  secrets: TokenSecrets;
  /** Lifetimes in seconds. */
  config: Pick<ConfigValues<typeof tokenConfig>, 'accountResetLifetime' | 'passwordForgotLifetime' | 'passwordChangeLifetime' | 'keyFetchLifetime'>;
}

/**
 * A short-lived token strategy: finds the row by the HMAC of the presented id and refuses it once
 * `lifetimeSeconds` have passed since it was made; `consume` makes it single use (spent as it
 * authenticates).
 */
function shortLived<T extends StoredToken>(
  db: Executor, secrets: TokenSecrets, kind: TokenType, table: ShortLivedTable, description: string, lifetimeSeconds: number,
  find: (handle: string) => Promise<T | null>, consume?: (handle: string) => Promise<boolean>,
): TokenStrategy<T> {
  return {
    kind, description,
    async find(id, now) {
      const row = await find(secrets.handle(kind, id));
      return row && now - row.createdAt <= lifetimeSeconds * 1000 ? row : null;
    },
    authKey: (c, id) => secrets.unsealAuthKey(kind, id, c.sealedAuthKey),
    hawkOnly: (c) => c.hawkOnly,
    pinToHawk: (c) => store.markTokenHawkOnly(db, table, c.id),
    ...(consume ? { consume: (c: T) => consume(c.id) } : {}),
  };
}

export function createTokensDomain({ db, secrets, config }: TokensDeps): Domain<TokensService> {
  const keyFetchToken = shortLived<KeyFetchToken>(db, secrets, 'keyFetchToken', 'key_fetch_tokens', 'A key fetch token (single use).',
    config.keyFetchLifetime, (id) => store.findKeyFetchToken(db, id));
  const accountResetToken = shortLived<AccountResetToken>(db, secrets, 'accountResetToken', 'account_reset_tokens', 'An account reset token (single use: spent once the request passes schema validation, even when it then fails).',
    config.accountResetLifetime, (id) => store.findAccountResetToken(db, id), (id) => store.deleteAccountResetToken(db, id));
  const passwordForgotToken = shortLived<PasswordForgotToken>(db, secrets, 'passwordForgotToken', 'password_forgot_tokens', 'A password forgot token.',
    config.passwordForgotLifetime, (id) => store.findPasswordForgotToken(db, id));
  const passwordChangeToken = shortLived<PasswordChangeToken>(db, secrets, 'passwordChangeToken', 'password_change_tokens', 'A password change token (single use: spent once the request passes schema validation, even when it then fails).',
    config.passwordChangeLifetime, (id) => store.findPasswordChangeToken(db, id), (id) => store.deletePasswordChangeToken(db, id));
  return {
    name: 'tokens',
    service: new TokensService(secrets),
    strategies: {
      keyFetchToken, accountResetToken, passwordForgotToken, passwordChangeToken,
      // Issue 22, hole 5: the routes that show or check the second factor during a reset take only
      // a forgot token whose holder proved the address (anyone naming it gets one of send_code).
      passwordForgotTokenProven: {
        ...passwordForgotToken,
        description: 'A password forgot token whose holder proved the address (that of /password/forgot/verify_otp); one of /password/forgot/send_code gets 400/138.',
        check: (t) => (forgotTokenProven(t) ? null : appError('SESSION_UNVERIFIED', {},
          'Unconfirmed session: this password forgot token has not proven the address (tokens of /password/forgot/send_code do not); use the token of /password/forgot/verify_otp, which the emailed one-time code proved')),
      },
    },
    hooks: {
      onAccountDeleted: (trx, uid) => store.deleteShortLivedTokens(trx, uid),
      // A new password voids every token the old one could still have produced or spent.
      onPasswordChanged: (trx, uid) => store.deleteShortLivedTokens(trx, uid),
      onPasswordReset: (trx, uid) => store.deleteShortLivedTokens(trx, uid),
      // Reset codes went to the old primary: they must not outlive it as the account's reset address.
      onPrimaryEmailChanged: (trx, uid) => store.deleteEmailedTokens(trx, uid),
    },
  };
}
