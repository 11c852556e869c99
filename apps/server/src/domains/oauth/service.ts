import { constantTimeStringEqual, randomHex } from '@tessera/protocol';
import type { Executor } from '../../storage/executor.js';
import { findClient, hashToken, insertAccessToken, insertClient, listClients, type OAuthClient } from './store.js';

// OAuth clients and access tokens as other domains use them today (stub accounts get an access
// token for the client that made them; the admin command registers clients). The OAuth server
// issue adds authorization codes, refresh tokens and the grant pipelines here.

export class OAuthService {
  findClient(db: Executor, id: string): Promise<OAuthClient | null> {
    return findClient(db, id);
  }

  /** Registers a client; a confidential client's secret is stored only as its SHA-256. */
  registerClient(db: Executor, client: Omit<OAuthClient, 'hashedSecret'> & { secret: string | null }): Promise<void> {
    const { secret, ...rest } = client;
    return insertClient(db, { ...rest, hashedSecret: secret === null ? null : hashToken(secret) });
  }

  /** Whether `secret` (64 hex) is the confidential client's secret; compared as hashes, in constant time. */
  clientSecretMatches(client: OAuthClient, secret: string): boolean {
    if (client.publicClient || client.hashedSecret === null || !/^[0-9a-fA-F]{64}$/.test(secret)) return false;
    return constantTimeStringEqual(hashToken(secret.toLowerCase()), client.hashedSecret);
  }

  listClients(db: Executor): Promise<OAuthClient[]> {
    return listClients(db);
  }

  /** A new access token for `uid` and the client; only its SHA-256 is stored (protocol.md §8.1). */
  async issueAccessToken(
    db: Executor, t: { clientId: string; uid: string; scope: string[]; now: number; ttlMs: number; profileChangedAt: number },
  ): Promise<string> {
    const token = randomHex(32);
    await insertAccessToken(db, {
      tokenHash: hashToken(token), clientId: t.clientId, uid: t.uid, scope: t.scope, createdAt: t.now,
      expiresAt: t.now + t.ttlMs, profileChangedAt: t.profileChangedAt,
    });
    return token;
  }
}
