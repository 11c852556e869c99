import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { TokenSecrets } from '../../crypto/token-secrets.js';
import { routesOf, type Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { Database } from '../../storage/schema.js';
import type { SecurityEvents } from '../security-events/index.js';
import type { WriteEpoch } from '../../storage/write-epoch.js';
import { ReadCache } from '../../storage/read-cache.js';
import { sessionRoutes } from './routes.js';
import { aalRefusal, SessionsService, type Locate } from './service.js';
import { deleteOtherSessions, markSessionHawkOnly, type SessionWithAccount } from './store.js';
export { sessionsDomain } from './manifest.js';

// The sessions domain: session tokens, their confirmation state and codes, the session strategies
// every signed-in route authenticates with, and the session routes.

export { signinConfig } from './config.js';
export { aalRefusal, meetsMinimumAal, SessionsService, verificationState, type Locate, type SessionEndedListener, type SessionStart } from './service.js';
export { isSessionVerified, methodName, sessionAal, SECOND_FACTOR_METHODS, VERIFICATION_METHODS, type SecondFactorMethod, type Session, type SecondFactorPort, type SessionLocation, type SessionWithAccount, type VerificationMethodName } from './store.js';
export type { CodeCheck } from './codes.js';
export { describeDevice, parseUserAgent } from './user-agent.js';
export { deliveryOf } from './delivery.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    sessionToken: SessionWithAccount;
    sessionTokenVerified: SessionWithAccount;
  }
}

export interface SessionsDomainDeps {
  db: Kysely<Database>;
  clock: Clock;
  writeEpoch: WriteEpoch;
  /** The keys session rows are stored under (a row is found by the HMAC of the presented id). */
  secrets: TokenSecrets;
  /** Idle sessions without a device expire this long after their last use (0: never). */
  idleLifetimeMs: number;
  /** Records sign-outs. */
  securityEvents: SecurityEvents;
  /** How long a session lookup is reused in process (0: never). */
  cacheMs: number;
  /** Where new sessions are opened from (domains/geo). */
  locate?: Locate;
}

export function createSessionsDomain(deps: SessionsDomainDeps): Domain<SessionsService> {
  const { db, writeEpoch, secrets } = deps;
  const sessions = new SessionsService(deps);
  const cache = new ReadCache<SessionWithAccount>(writeEpoch, deps.cacheMs);
  const checkLive = (s: SessionWithAccount, now: number) => {
    // A disabled account's sessions stop working at once (issue 9, hole 10).
    if (s.account.disabledAt !== null) return null;
    const live = sessions.isLive(s, now);
    return live === true ? s : live === false ? null : live.then((ok) => (ok ? s : null));
  };
  // The hot path: a cached session answers without a promise (see http/auth.ts). The cache is keyed
  // by the presented id, so a hit costs no HMAC; a miss costs one, to find the row by its handle.
  // A session object is only ever reached through the one id whose handle found it, so its unsealed
  // Hawk key is kept beside it (and goes with it): Hawk on a cache hit costs no HMAC either.
  const unsealed = new WeakMap<SessionWithAccount, string>();
  const sessionToken: TokenStrategy<SessionWithAccount> = {
    kind: 'sessionToken',
    session: 'unconfirmed',
    description: 'A session token.',
    find(id, now) {
      const cached = cache.get(id, now);
      if (cached) return checkLive(cached, now);
      const epoch = cache.mark();
      return sessions.findWithAccount(db, secrets.handle('sessionToken', id)).then((s) => {
        if (!s) return null;
        cache.set(id, s, now, epoch);
        return checkLive(s, now);
      });
    },
    authKey(s, id) {
      let key = unsealed.get(s);
      if (key === undefined) {
        key = secrets.unsealAuthKey('sessionToken', id, s.sealedAuthKey);
        unsealed.set(s, key);
      }
      return key;
    },
    hawkOnly: (s) => s.hawkOnly,
    // The write moves the write epoch, so the cached copy that still says "Bearer allowed" is dropped.
    pinToHawk: (s) => markSessionHawkOnly(db, s.id),
  };
  return {
    name: 'sessions',
    service: sessions,
    routes: routesOf(sessionRoutes, { sessions }),
    strategies: {
      sessionToken,
      sessionTokenVerified: {
        ...sessionToken,
        session: 'aal',
        description: 'A confirmed session token (an unconfirmed one gets 400/138; on an account with two-step authentication, one not confirmed by a second factor gets 400/222).',
        check: (s) => aalRefusal(s),
      },
    },
    hooks: {
      onAccountDeleted: async (trx, uid) => void (await deleteOtherSessions(trx, uid, null)),
      onPasswordChanged: async (trx, uid, keep) => void (await deleteOtherSessions(trx, uid, keep.sessionTokenId)),
      onPasswordReset: async (trx, uid) => void (await deleteOtherSessions(trx, uid, null)),
    },
  };
}
