import { randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.js';
import type { Executor } from '../../../storage/executor.js';
import { hashToken } from '../token-hash.js';
import { clientSecretMatches } from './credentials.js';
import { clientFromRegistration, redirectUriMatches, type ClientRegistration } from './registration.js';
import { deleteClient, findClient, insertClient, isClientId, listClients, updateClient, updateClientSecrets, type OAuthClient } from './store.js';

// The clients registry: registration, the start-up file, secret rotation, removal, and what a
// sign-in page may show of a client. The admin command uses it alone (no signing key, no secret).

/** What GET /client/{id} shows of a client: nothing secret. */
export interface ClientInfo {
  id: string;
  name: string;
  trusted: boolean;
  image_uri: string;
  redirect_uri: string;
}

export class ClientRegistry {
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

  /** Whether `secret` is the confidential client's secret, or its previous one during a rotation (credentials.ts). */
  clientSecretMatches(client: OAuthClient, secret: string): boolean {
    return clientSecretMatches(client, secret);
  }

  /** Whether `redirectUri` is registered for the client (exact, or a loopback port for native apps). */
  redirectUriMatches(client: OAuthClient, redirectUri: string): boolean {
    return redirectUriMatches(client, redirectUri);
  }

  clientInfo(client: OAuthClient): ClientInfo {
    return { id: client.id, name: client.name, trusted: client.trusted, image_uri: client.imageUri, redirect_uri: client.redirectUri };
  }

  listClients(db: Executor): Promise<OAuthClient[]> {
    return listClients(db);
  }
}
