import { constantTimeStringEqual, randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { Executor } from '../../storage/executor.js';
import { deleteClientGrantsOf, listRefreshTokensOf, revokeRefreshTokenGrant } from './grants/store.js';
import { clientFromRegistration, redirectUriMatches, type ClientRegistration } from './clients.js';
import { timestampShownTo } from './ppid.js';
import {
  deleteClient, findClient, hashToken, HEX64, insertAccessToken, insertClient, isClientId, listClients, updateClient, updateClientSecrets, type AccessToken, type OAuthClient,
} from './store.js';

// OAuth clients (the registry: registration, the start-up file, secret rotation, removal) and the
// access tokens other domains issue today (stub accounts get one for the client that made them).

/** What GET /client/{id} shows of a client: nothing secret. */
export interface ClientInfo {
  id: string;
  name: string;
  trusted: boolean;
  image_uri: string;
  redirect_uri: string;
}

export class OAuthService {
  /** `ppidSecret`: OAUTH_PPID_SECRET, for timestampFor (the admin command needs none). */
  constructor(private readonly ppidSecret?: string) {}

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

  findClient(db: Executor, id: string): Promise<OAuthClient | null> {
    return findClient(db, id);
  }

  /** Registers a client; a confidential client's secret is stored only as its SHA-256. Throws ClientRegistrationError when invalid. */
  async registerClient(db: Executor, registration: ClientRegistration): Promise<OAuthClient> {
    const client = clientFromRegistration(registration, hashToken);
    await insertClient(db, client);
    return client;
  }

  /**
   * Registers the clients of OAUTH_CLIENTS_FILE, or brings registered ones in line with it (the file
   * wins for the clients it names; clients it does not name are left alone). A changed secret hash
   * keeps the one it replaces as the previous secret, so a rotation done through the file lets
   * deployments still holding the old secret continue until the next change. One transaction.
   */
  async seedClients(db: Kysely<Database>, registrations: ClientRegistration[]): Promise<{ added: number; updated: number }> {
    const clients = registrations.map((r) => clientFromRegistration(r, hashToken));
    return db.transaction().execute(async (trx) => {
      let added = 0;
      let updated = 0;
      for (const c of clients) {
        const existing = await findClient(trx, c.id);
        if (!existing) {
          await insertClient(trx, c);
          added++;
          continue;
        }
        const previous = existing.hashedSecret !== c.hashedSecret ? existing.hashedSecret : existing.hashedSecretPrevious;
        await updateClient(trx, { ...c, hashedSecretPrevious: c.publicClient ? null : previous });
        updated++;
      }
      return { added, updated };
    });
  }

  /**
   * Starts a secret rotation: a new secret (returned once, stored hashed) becomes current and the
   * current one stays valid as the previous until `finishRotation`. Null for an unknown or public client.
   */
  async rotateSecret(db: Executor, id: string): Promise<string | null> {
    const client = await this.findClient(db, id);
    if (!client || client.publicClient) return null;
    const secret = randomHex(32);
    await updateClientSecrets(db, client.id, hashToken(secret), client.hashedSecret);
    return secret;
  }

  /** Ends a rotation: the previous secret stops working. False for an unknown client. */
  async finishRotation(db: Executor, id: string): Promise<boolean> {
    const client = await this.findClient(db, id);
    if (!client) return false;
    return updateClientSecrets(db, client.id, client.hashedSecret, null);
  }

  /** Removes a client and every token issued to it, in one transaction. False when unknown. */
  removeClient(db: Kysely<Database>, id: string): Promise<boolean> {
    if (!isClientId(id)) return Promise.resolve(false);
    return db.transaction().execute((trx) => deleteClient(trx, id.toLowerCase()));
  }

  /**
   * Whether `secret` (64 hex) is the confidential client's secret, or its previous one during a
   * rotation; compared as hashes, in constant time, both always compared.
   */
  clientSecretMatches(client: OAuthClient, secret: string): boolean {
    if (client.publicClient || client.hashedSecret === null || !HEX64.test(secret)) return false;
    const hashed = hashToken(secret.toLowerCase());
    const current = constantTimeStringEqual(hashed, client.hashedSecret);
    const previous = client.hashedSecretPrevious !== null && constantTimeStringEqual(hashed, client.hashedSecretPrevious);
    return current || previous;
  }

  /** Whether `redirectUri` is registered for the client (exact, or a loopback port for native apps). */
  redirectUriMatches(client: OAuthClient, redirectUri: string): boolean {
    return redirectUriMatches(client, redirectUri);
  }

  clientInfo(client: OAuthClient): ClientInfo {
    return { id: client.id, name: client.name, trusted: client.trusted, image_uri: client.imageUri, redirect_uri: client.redirectUri };
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
      expiresAt: t.now + t.ttlMs, profileChangedAt: t.profileChangedAt, grantId: randomHex(16),
    });
    return token;
  }
}
