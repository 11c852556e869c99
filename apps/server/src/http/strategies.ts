import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import { findAccessToken } from '../domains/oauth/store.js';
import type { SessionsService } from '../domains/sessions/service.js';
import { findSessionWithAccount, isSessionVerified, type SessionWithAccount } from '../domains/sessions/store.js';
import {
  deleteAccountResetToken, deletePasswordChangeToken, findAccountResetToken, findKeyFetchToken,
  findPasswordChangeToken, findPasswordForgotToken,
} from '../domains/tokens/store.js';
import type { Database } from '../storage/schema.js';
import type { WriteEpoch } from '../storage/write-epoch.js';
import type { SessionCache } from '../domains/sessions/cache.js';
import { defineStrategy, type StrategyMap, type TokenStrategy } from './auth.js';

export interface StrategyDeps {
  db: Kysely<Database>;
  sessions: SessionsService;
  sessionCache: SessionCache;
  writeEpoch: WriteEpoch;
  /** Lifetimes in seconds. */
  tokens: { accountResetLifetime: number; passwordForgotLifetime: number; passwordChangeLifetime: number; keyFetchLifetime: number };
}

/** Finds a row and refuses it once `lifetime` seconds have passed since it was made. */
function within<T extends { createdAt: number }>(find: (id: string) => Promise<T | null>, lifetimeSeconds: number) {
  return async (id: string, now: number) => {
    const row = await find(id);
    return row && now - row.createdAt <= lifetimeSeconds * 1000 ? row : null;
  };
}

const authKey = (c: { authKey: string }) => c.authKey;

/** Every way a route can be authenticated, keyed by the name routes use in `config.auth`. */
export function buildStrategies({ db, sessions, sessionCache, writeEpoch, tokens }: StrategyDeps): StrategyMap {
  const checkLive = (s: SessionWithAccount, now: number) => {
    const live = sessions.isLive(s, now);
    return live === true ? s : live === false ? null : live.then((ok) => (ok ? s : null));
  };
  const session: TokenStrategy<SessionWithAccount> = {
    kind: 'sessionToken',
    description: 'A session token.',
    find(id, now) {
      const cached = sessionCache.get(id, now);
      if (cached) return checkLive(cached, now);
      const epoch = writeEpoch.value;
      return findSessionWithAccount(db, id).then((s) => {
        if (!s) return null;
        sessionCache.set(id, s, now, epoch);
        return checkLive(s, now);
      });
    },
    authKey,
  };
  return {
    sessionToken: defineStrategy(session),
    sessionTokenVerified: defineStrategy({
      ...session,
      description: 'A confirmed session token (an unconfirmed one gets 400/138).',
      check: (s) => (isSessionVerified(s) ? null : appError('SESSION_UNVERIFIED')),
    }),
    keyFetchToken: defineStrategy({
      kind: 'keyFetchToken',
      description: 'A key fetch token (single use).',
      find: within((id) => findKeyFetchToken(db, id), tokens.keyFetchLifetime),
      authKey,
    }),
    accountResetToken: defineStrategy({
      kind: 'accountResetToken',
      description: 'An account reset token (single use: spent even when the request fails).',
      find: within((id) => findAccountResetToken(db, id), tokens.accountResetLifetime),
      authKey,
      consume: (id) => deleteAccountResetToken(db, id),
    }),
    passwordForgotToken: defineStrategy({
      kind: 'passwordForgotToken',
      description: 'A password forgot token.',
      find: within((id) => findPasswordForgotToken(db, id), tokens.passwordForgotLifetime),
      authKey,
    }),
    passwordChangeToken: defineStrategy({
      kind: 'passwordChangeToken',
      description: 'A password change token (single use: spent even when the request fails).',
      find: within((id) => findPasswordChangeToken(db, id), tokens.passwordChangeLifetime),
      authKey,
      consume: (id) => deletePasswordChangeToken(db, id),
    }),
    oauthToken: defineStrategy({
      kind: 'oauth',
      description: 'An OAuth access token.',
      async find(token, now) {
        const t = await findAccessToken(db, token);
        return t && t.expiresAt > now ? t : null;
      },
    }),
  };
}
