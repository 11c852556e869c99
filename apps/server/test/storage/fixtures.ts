import { migrationsOf } from '../../src/app.js';
import { afterAll, beforeAll } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { migrateToLatest, openStorage, type DialectName, type Storage } from '../../src/storage/db.js';
import { databaseUrlFor, freshDatabase } from '../harness.js';

/** The dialects these storage tests run on: SQLite, and PostgreSQL and MySQL when their URLs are set. */
export const storageDialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

/** A new access-token row: fresh hash and uid, for `clientId`, expiring at 2,000 ms. */
export const accessTokenRow = (clientId = 'abcdef0123456789') => ({
  tokenHash: randomHex(32), clientId, uid: randomHex(16), scope: ['profile'], createdAt: 1_000, expiresAt: 2_000, profileChangedAt: 1_000,
});

/**
 * A fresh, migrated database of `dialect` for one describe block: `storage` (with `poolSize`
 * connections when given) and `other`, a second storage on the same database to read from another
 * connection. Read them inside tests.
 */
export function freshStorage(dialect: DialectName, options: { poolSize?: number } = {}): { readonly storage: Storage; readonly other: Storage } {
  let storage: Storage | undefined;
  let other: Storage | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, options);
    await migrateToLatest(storage.db, {}, migrationsOf());
    other = openStorage(fresh.url);
  });
  afterAll(async () => {
    await storage?.destroy();
    await other?.destroy();
    await drop?.();
  });
  return { get storage() { return storage!; }, get other() { return other!; } };
}
