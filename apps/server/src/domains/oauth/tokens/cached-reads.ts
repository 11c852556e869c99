import type { Kysely } from 'kysely';
import { ReadCache } from '../../../storage/read-cache.js';
import type { Database } from '../../../storage/schema.js';
import type { WriteEpoch } from '../../../storage/write-epoch.js';
import type { OAuthClient } from '../clients/store.js';
import { findAccessTokenByHash, findClientWithAccessToken, type AccessToken } from './store.js';

/**
 * The reads behind every introspection and every bearer-token request (userinfo, profile, /verify):
 * a client by id and an access token by its row key, kept briefly in process (storage/read-cache.ts,
 * ADR-11). A resource server introspects the same token on each call its client makes; a hit costs
 * no statement. Callers still check everything on every request: the client's secret against the
 * presented one, and the token's expiry against `now`. Only rows that exist are kept, and only the
 * root executor reads through here, never a transaction.
 */
export class OAuthReads {
  private readonly clients: ReadCache<OAuthClient>;
  private readonly accessTokens: ReadCache<AccessToken>;

  constructor(private readonly db: Kysely<Database>, epoch: WriteEpoch, ttlMs: number) {
    this.clients = new ReadCache(epoch, ttlMs);
    this.accessTokens = new ReadCache(epoch, ttlMs);
  }

  /** The client `clientId` and the access token stored under `tokenHash` (whoever it belongs to), each null when unknown. */
  async clientWithAccessToken(clientId: string, tokenHash: string, now: number): Promise<{ client: OAuthClient | null; token: AccessToken | null }> {
    // A malformed id finds nothing in the cache, and findClientWithAccessToken reads nothing for it.
    const id = clientId.toLowerCase();
    const client = this.clients.get(id, now);
    const token = client && this.accessTokens.get(tokenHash, now);
    if (client && token) return { client, token };
    const epoch = this.clients.mark();
    const read = await findClientWithAccessToken(this.db, id, tokenHash);
    if (read.client) this.clients.set(id, read.client, now, epoch);
    if (read.token) this.accessTokens.set(tokenHash, read.token, now, epoch);
    return read;
  }

  /** The access token stored under `tokenHash` (an opaque token's hash, or a JWT access token's jti key), or null. */
  async accessToken(tokenHash: string, now: number): Promise<AccessToken | null> {
    const cached = this.accessTokens.get(tokenHash, now);
    if (cached) return cached;
    const epoch = this.accessTokens.mark();
    const token = await findAccessTokenByHash(this.db, tokenHash);
    if (token) this.accessTokens.set(tokenHash, token, now, epoch);
    return token;
  }
}
