import { routesOf, type Domain } from '../../domain.js';
import { twoStepRoutes } from './routes.js';
import { secondFactorReads } from './second-factor-port.js';
import { TwoStepService, type TwoStepDeps } from './service.js';
export { twoStepDomain } from './manifest.js';

// The two-step domain (issue 12): the authenticator app (TOTP), backup codes, and the session's
// rise to AAL2. Other domains use its service:
// - `isEnabled(uid)`: whether sign-ins need a second factor (accounts, linked accounts);
// - `backupCodeCount(uid)`;
// - `upgradeSessionToAal2(db, session, method, ctx)`: what a second factor checked elsewhere (the
//   recovery phone's 'sms-2fa') calls to confirm a session;
// - `markForgotTokenVerified(db, forgotTokenId, method)`: the same during a password reset;
// - `onDisabled(listener)`: called inside the transaction that turns two-step off.

export { twoStepConfig } from './config.js';
export { TwoStepService, type TwoStepDisabledListener } from './service.js';
export { SecretBox } from './secret-box.js';

export function createTwoStepDomain(deps: TwoStepDeps): Domain<TwoStepService> {
  const twoStep = new TwoStepService(deps);
  // Sessions (a floor below) read whether an account has two-step on through this domain's port.
  deps.sessions.acceptSecondFactor(secondFactorReads);
  return {
    name: 'two-step',
    service: twoStep,
    routes: routesOf(twoStepRoutes, { twoStep }),
    hooks: {
      onAccountDeleted: (trx, uid) => twoStep.deleteAccount(trx, uid),
    },
  };
}
