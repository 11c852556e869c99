import { randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { Executor } from '../../storage/executor.js';
import { deleteClientGrantsOf, listRefreshTokensOf, revokeRefreshTokenGrant } from './grants/store.js';
import { ClientRegistry } from './clients/registry.js';
import { timestampShownTo } from './ppid.js';
import { hashToken } from './token-hash.js';
import { accessTokenClientsOf, insertAccessToken, type AccessToken } from './tokens/store.js';

// What other domains ask of OAuth: the clients registry (clients/registry.ts), the account's grants
// (attached clients lists and revokes them), account times as a client may see them, and the access
// tokens other domains issue today (stub accounts get one for the client that made them).

/** A client the account has authorized: per refresh token (by handle), or holding only live access tokens. */
export interface AuthorizedClient {
  clientId: string;
  clientName: string;
  /** The refresh token's handle (SHA-256 of it); absent for a client holding only access tokens. */
  refreshTokenId?: string;
  createdAt: number;
  /** A refresh token's last use (written at most hourly); for access tokens only, when the newest was issued. */
  lastAccessAt: number;
  scope: string[];
}

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
   * What the account has authorized (POST /authorized-clients): one entry per refresh token, and one
   * per client holding only live access tokens (their scopes merged, first and last issue kept);
   * most recently used first.
   */
  async authorizedClients(db: Executor, uid: string, now: number): Promise<AuthorizedClient[]> {
    const [refresh, access] = await Promise.all([listRefreshTokensOf(db, uid), accessTokenClientsOf(db, uid, now)]);
    const withRefresh = new Set(refresh.map((r) => r.clientId));
    const accessOnly = new Map<string, AuthorizedClient>();
    for (const a of access) {
      if (withRefresh.has(a.clientId)) continue;
      const seen = accessOnly.get(a.clientId);
      if (!seen) accessOnly.set(a.clientId, { clientId: a.clientId, clientName: a.clientName, createdAt: a.createdAt, lastAccessAt: a.createdAt, scope: a.scope });
      else {
        seen.scope = [...new Set([...seen.scope, ...a.scope])];
        seen.createdAt = Math.min(seen.createdAt, a.createdAt);
        seen.lastAccessAt = Math.max(seen.lastAccessAt, a.createdAt);
      }
    }
    return [
      ...refresh.map((r) => ({ clientId: r.clientId, clientName: r.clientName, refreshTokenId: r.id, createdAt: r.createdAt, lastAccessAt: r.lastUsedAt, scope: r.scope })),
      ...accessOnly.values(),
    ].sort((a, b) => b.lastAccessAt - a.lastAccessAt);
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
