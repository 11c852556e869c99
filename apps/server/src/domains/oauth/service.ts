import { randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { Executor } from '../../storage/executor.js';
import { deleteClientGrantsOf, listRefreshTokensOf, revokeRefreshTokenGrant } from './grants/store.js';
import { ClientRegistry } from './clients/registry.js';
import { timestampShownTo } from './ppid.js';
import { hashToken } from './token-hash.js';
import { insertAccessToken, type AccessToken } from './tokens/store.js';

// What other domains ask of OAuth: the clients registry (clients/registry.ts), the account's grants
// (attached clients lists and revokes them), account times as a client may see them, and the access
// tokens other domains issue today (stub accounts get one for the client that made them).

export class OAuthService extends ClientRegistry {
  /** `ppidSecret`: OAUTH_PPID_SECRET, for timestampFor (the admin command needs none). */
  constructor(private readonly ppidSecret?: string) {
    super();
  }

  /**
   * An account timestamp (`profileChangedAt`, `accountDisabledAt`, `accountLockedAt`, …) as the
   * client of `token` may see it: for a pairwise client a per-subject marker instead of the time
   * (issue 22, hole 7; ppid.ts timestampShownTo). For other domains' routes that answer account
   * times to an access token, e.g. GET /account/profile; name the field as /v1/profile does.
   */
  timestampFor<V extends number | null>(token: Pick<AccessToken, 'uid' | 'subject'>, field: string, value: V): V {
    if (this.ppidSecret === undefined) throw new Error('OAuthService.timestampFor needs the OAUTH_PPID_SECRET');
    return timestampShownTo(this.ppidSecret, token, field, value);
  }

  /** The account's refresh tokens for attached clients (the devices domain merges them). */
  refreshTokensOf(db: Executor, uid: string) {
    return listRefreshTokensOf(db, uid);
  }

  /**
   * Revokes the account's refresh token by handle (SHA-256 of the token), of `clientId` when given,
   * and in the same transaction the access tokens of its grant (RFC 7009 §2.1).
   */
  revokeRefreshToken(db: Kysely<Database>, uid: string, id: string, clientId?: string): Promise<boolean> {
    if (!/^[0-9a-f]{64}$/.test(id)) return Promise.resolve(false);
    return db.transaction().execute((trx) => revokeRefreshTokenGrant(trx, id, { uid, ...(clientId ? { clientId } : {}) }));
  }

  /** Revokes every refresh and access token the account granted the client, in one transaction. */
  revokeClientGrants(db: Kysely<Database>, uid: string, clientId: string): Promise<number> {
    return db.transaction().execute((trx) => deleteClientGrantsOf(trx, uid, clientId));
  }

  /** A new access token for `uid` and the client; only its SHA-256 is stored (protocol.md §8.1). */
  async issueAccessToken(
    db: Executor, t: { clientId: string; uid: string; scope: string[]; now: number; ttlMs: number; profileChangedAt: number },
  ): Promise<string> {
    const token = randomHex(32);
    await insertAccessToken(db, {
      tokenHash: hashToken(token), clientId: t.clientId, uid: t.uid, scope: t.scope, createdAt: t.now,
      expiresAt: t.now + t.ttlMs, profileChangedAt: t.profileChangedAt, grantId: randomHex(16),
    });
    return token;
  }
}
