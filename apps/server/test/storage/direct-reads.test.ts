import { migrationsOf } from '../../src/app.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { migrateToLatest, openStorage, type Storage } from '../../src/storage/db.js';
import { accessTokenRow } from './fixtures.js';
import { directReadHandle } from '../../src/storage/direct-reads.js';
import { findAccessTokenByHash, insertAccessToken } from '../../src/domains/oauth/tokens/store.js';

// On SQLite the prepared point lookups (storage/prepared.ts) read straight from the database handle,
// past Kysely's driver, unless a transaction is open. The attack: a read racing a transaction must
// never see a row the transaction has written but not committed (a token that a rollback then
// removes, or one a revocation is about to delete), and must see the row once it is committed.

const token = accessTokenRow;

describe('direct SQLite reads', () => {
  let storage: Storage;

  beforeAll(async () => {
    storage = openStorage('sqlite::memory:');
    await migrateToLatest(storage.db, {}, migrationsOf());
  });

  afterAll(async () => {
    await storage?.destroy();
  });

  it('read outside a transaction directly, with the rows Kysely reads', async () => {
    const t = token();
    await insertAccessToken(storage.db, t);
    expect(directReadHandle(storage.db)).toBeDefined();
    const direct = await findAccessTokenByHash(storage.db, t.tokenHash);
    expect(direct).toMatchObject({ tokenHash: t.tokenHash, uid: t.uid, scope: ['profile'], expiresAt: 2_000 });
    // The same lookup through Kysely, inside a transaction (where direct reads are never used).
    const viaKysely = await storage.db.transaction().execute((trx) => findAccessTokenByHash(trx, t.tokenHash));
    expect(viaKysely).toEqual(direct);
    expect(await findAccessTokenByHash(storage.db, randomHex(32))).toBeNull();
  });

  it('never show a row written by a transaction that has not committed, and show it once it has', async () => {
    const t = token();
    let readDuring: Promise<unknown> | undefined;
    let settledDuring = false;
    await storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, t);
      expect(directReadHandle(storage.db)).toBeUndefined();
      readDuring = findAccessTokenByHash(storage.db, t.tokenHash);
      void readDuring.then(() => { settledDuring = true; });
      await new Promise((r) => setTimeout(r, 20));
      // The read waits for the connection, which the transaction holds: it has not answered.
      expect(settledDuring).toBe(false);
    });
    // Committed: the waiting read answers with the row, as does a direct read.
    expect(await readDuring).toMatchObject({ tokenHash: t.tokenHash });
    expect(directReadHandle(storage.db)).toBeDefined();
    expect(await findAccessTokenByHash(storage.db, t.tokenHash)).toMatchObject({ tokenHash: t.tokenHash });
  });

  it('never show a row of a transaction that rolls back', async () => {
    const t = token();
    let readDuring: Promise<unknown> | undefined;
    await expect(storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, t);
      readDuring = findAccessTokenByHash(storage.db, t.tokenHash);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await readDuring).toBeNull();
    expect(await findAccessTokenByHash(storage.db, t.tokenHash)).toBeNull();
  });

  it('are SQLite only: other stores have no handle', async () => {
    expect(directReadHandle({})).toBeUndefined();
  });
});
