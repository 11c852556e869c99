import { appError } from '@tessera/errors';
import { routesOf, type Domain } from '../../domain.js';
import type { RouteAuth, TokenStrategy } from '../../http/auth.js';
import { MfaJwt, MfaTokenRefused, MFA_SCOPES, type MfaAction, type MfaJwtOptions } from './jwt.js';
import { mfaRoutes } from './routes.js';
import { MfaService, type MfaCredentials, type MfaDeps } from './service.js';
import { deleteAccountOtps, deleteOtherOtps, deleteSessionOtps } from './store.js';
export { mfaDomain } from './manifest.js';

// The mfa domain: the step-up codes, the MFA token (JWT) and the `mfa` auth strategy that every
// /mfa route authenticates with.
//
// Declaring an /mfa route is one line of config in the domain that owns the action:
//
//   app.post('/mfa/recoveryCodes', { config: { auth: mfaAuth('2fa') }, schema: { … } }, async (req) => {
//     const { uid, session } = credentialsOf(req, 'mfa');
//     …
//   });
//
// The scope is required (a route naming `mfa` without one does not start), shown in the OpenAPI
// security requirement (`mfaTokenBearer: ['mfa:2fa']`), and checked on every request: a token
// scoped to another action, expired, for another audience or issuer, badly signed, or whose
// session has ended gets 401/223. protocol.md §5.1 says which action each route needs.

export { mfaConfig } from './config.js';
export { MFA_ACTIONS, MFA_SCOPES, MfaJwt, type MfaAction, type MfaScope } from './jwt.js';
export { MfaService, type MfaCredentials } from './service.js';
export { sessionOrMfa, type AccountCaller } from './ways-in.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    mfa: MfaCredentials;
  }
}

/** The `config.auth` of an /mfa route: the MFA token, scoped to `mfa:<action>`. */
export function mfaAuth(action: MfaAction): RouteAuth {
  return { strategies: ['mfa'], scope: `mfa:${action}` };
}

export interface MfaDomainDeps extends Omit<MfaDeps, 'jwt'> {
  jwt: MfaJwtOptions;
}

export function createMfaDomain(deps: MfaDomainDeps): Domain<MfaService> {
  const mfa = new MfaService({ ...deps, jwt: new MfaJwt(deps.jwt) });
  // A session that ends one by one (sign-out, too many wrong codes, idle expiry) takes its codes along.
  deps.sessions.onSessionEnded((db, _uid, sessionId) => deleteSessionOtps(db, sessionId));
  const strategy: TokenStrategy<MfaCredentials> = {
    kind: 'jwt',
    description: 'An MFA token: `Authorization: Bearer <JWT>` as `/mfa/otp/verify` returned it (HS256, 10 minutes). Each /mfa route needs the scope listed in its security requirement.',
    scopes: MFA_SCOPES,
    refusal: 'INVALID_MFA_TOKEN',
    find: (token, now) => mfa.authenticate(token, now).catch((err: unknown) => {
      if (err instanceof MfaTokenRefused) throw appError('INVALID_MFA_TOKEN', {}, `Invalid or expired MFA token: ${err.message}`);
      throw err;
    }),
    check: (c, route) => (route.scope !== undefined && c.scopes.includes(route.scope)
      ? null
      : appError('INVALID_MFA_TOKEN', {}, `Invalid or expired MFA token: this route needs scope ${route.scope}; request a token for that action`)),
  };
  return {
    name: 'mfa',
    service: mfa,
    routes: routesOf(mfaRoutes, { mfa }),
    strategies: { mfa: strategy },
    hooks: {
      onAccountDeleted: deleteAccountOtps,
      onPasswordChanged: (trx, uid, keep) => deleteOtherOtps(trx, uid, keep.sessionTokenId),
      onPasswordReset: deleteAccountOtps,
    },
  };
}
