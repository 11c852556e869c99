import { routesOf, type Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { AccountResetToken } from '../tokens/index.js';
import { recoveryKeyRoutes } from './routes.js';
import { RecoveryKeysService, type RecoveryKeysDeps } from './service.js';
import { deleteRecoveryKey } from './store.js';
export { recoveryKeysDomain } from './manifest.js';

// The recovery-keys domain: the account's recovery key (protocol.md §4.8) — stored, confirmed,
// hinted, fetched during a reset and spent by it. The passwords domain calls `spendForReset` inside
// the reset; the MFA routes (/mfa/recoveryKey) call `create` and `remove` with the uid their token
// names, so those rules live in one place whichever way the caller authenticated.

export { RecoveryKeysService, hashRecoveryKeyId, type NewRecoveryKey } from './service.js';
export { recoveryKeyId as recoveryKeyIdSchema, recoveryData as recoveryDataSchema } from './routes.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    accountResetTokenUnspent: AccountResetToken;
  }
}

export interface RecoveryKeysDomainDeps extends RecoveryKeysDeps {
  /** The tokens domain's account reset token strategy: GET /recoveryKey/{id} uses it without spending it. */
  accountResetToken: TokenStrategy<AccountResetToken>;
}

export function createRecoveryKeysDomain(deps: RecoveryKeysDomainDeps): Domain<RecoveryKeysService> {
  const recoveryKeys = new RecoveryKeysService(deps);
  // protocol.md §4.8: the client fetches recoveryData with the reset token, then resets with the
  // same token; so this route finds and proves the token like any other but does not spend it.
  const { consume: _spends, ...unspent } = deps.accountResetToken;
  return {
    name: 'recovery-keys',
    service: recoveryKeys,
    routes: routesOf(recoveryKeyRoutes, { recoveryKeys }),
    strategies: {
      accountResetTokenUnspent: { ...unspent, description: 'An account reset token, not spent by this request.' },
    },
    hooks: {
      onAccountDeleted: async (trx, uid) => void (await deleteRecoveryKey(trx, uid)),
      // A password change keeps kB (the client re-wraps it), so the key still opens the right kB: it stays.
      // A reset replaces kB unless it spent the key (then the key is already gone): recoveryData
      // would hold a kB the account no longer has, so the key goes.
      onPasswordReset: async (trx, uid) => void (await deleteRecoveryKey(trx, uid)),
    },
  };
}
