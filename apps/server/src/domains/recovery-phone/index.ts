import { routesOf, type Domain } from '../../domain.js';
import { recoveryPhoneRoutes } from './routes.js';
import { RecoveryPhoneService, type RecoveryPhoneDeps } from './service.js';
export { recoveryPhoneDomain } from './manifest.js';

// The recovery-phone domain (issue 12, protocol.md §4.9): a phone that receives SMS codes standing
// in for the authenticator app at sign-in and during a password reset. It hangs off two-step
// authentication: `createRecoveryPhoneDomain` registers with `twoStep.onDisabled` so turning
// two-step off removes the phone in the same transaction.

export { recoveryPhoneConfig } from './config.js';
export { RecoveryPhoneService, maskPhoneNumber } from './service.js';

export function createRecoveryPhoneDomain(deps: RecoveryPhoneDeps): Domain<RecoveryPhoneService> {
  const recoveryPhone = new RecoveryPhoneService(deps);
  deps.twoStep.onDisabled((trx, uid) => recoveryPhone.onTwoStepDisabled(trx, uid));
  return {
    name: 'recovery-phone',
    service: recoveryPhone,
    routes: routesOf(recoveryPhoneRoutes, { recoveryPhone }),
    hooks: {
      onAccountDeleted: (trx, uid) => recoveryPhone.deleteAccount(trx, uid),
    },
  };
}
