import { routesOf, type Domain } from '../../domain.js';
import { passwordRoutes } from './routes.js';
import { PasswordsService, type PasswordsDeps } from './service.js';
import { deleteForgotOtp } from './store.js';
export { passwordsDomain } from './manifest.js';

// The passwords domain: change, forgot (code and one-time code), reset, and a first password for
// accounts without one. Its own table holds the one-time codes of /password/forgot/send_otp.

export { PasswordsService } from './service.js';

export function createPasswordsDomain(deps: PasswordsDeps & { redirectOrigins: readonly string[] }): Domain<PasswordsService> {
  const passwords = new PasswordsService(deps);
  return {
    name: 'passwords',
    service: passwords,
    routes: routesOf(passwordRoutes, { passwords, redirectOrigins: deps.redirectOrigins }),
    hooks: {
      onAccountDeleted: deleteForgotOtp,
      // A code requested under the old password must not outlive it.
      onPasswordChanged: (trx, uid) => deleteForgotOtp(trx, uid),
      onPasswordReset: deleteForgotOtp,
      // The code went to the old primary, which can no longer reset the password (145).
      onPrimaryEmailChanged: deleteForgotOtp,
    },
  };
}
