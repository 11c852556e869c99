import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { migrateToLatest, openStorage, type DialectName, type Storage } from '../../src/storage/db.js';
import { afterCommit } from '../../src/storage/after-commit.js';
import { insertAccessToken } from '../../src/domains/oauth/store.js';
import { databaseUrlFor, freshDatabase } from '../harness.js';

// Pushes queued by lifecycle hooks wait for their transaction (storage/after-commit.ts). The attack:
// a push for a change that rolls back, or one that reaches a device before the change is visible,
// which then re-reads the account and finds the old state.

const dialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

const token = () => ({
  tokenHash: randomHex(32), clientId: 'abcdef0123456789', uid: randomHex(16), scope: ['profile'], createdAt: 1_000, expiresAt: 2_000, profileChangedAt: 1_000,
});

describe.each(dialects)('effects after commit (%s)', (dialect) => {
  let storage: Storage;
  let other: Storage;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, { poolSize: 1 });
    await migrateToLatest(storage.db);
    other = openStorage(fresh.url);
  });

  afterAll(async () => {
    await storage?.destroy();
    await other?.destroy();
    await drop?.();
  });

  const visibleElsewhere = async (tokenHash: string) => (await other.db.selectFrom('oauth_access_tokens').select('token_hash')
    .where('token_hash', '=', tokenHash).execute()).length === 1;

  it('run once the transaction has committed, when its rows are visible to every connection', async () => {
    const t = token();
    const seen: boolean[] = [];
    await storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, t);
      await afterCommit(trx, () => { seen.push(true); });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual([true]);
    expect(await visibleElsewhere(t.tokenHash)).toBe(true);
  });

  it('never run for a transaction that rolls back, nor later on the same connection', async () => {
    let ran = 0;
    await expect(storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, token());
      await afterCommit(trx, () => { ran++; });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    // The pool has one connection: the next transaction runs on the same one.
    await storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, token());
    });
    expect(ran).toBe(0);
  });

  it('run at once outside a transaction, and in order within one', async () => {
    const order: string[] = [];
    await afterCommit(storage.db, () => { order.push('now'); });
    expect(order).toEqual(['now']);
    await storage.db.transaction().execute(async (trx) => {
      await afterCommit(trx, () => { order.push('first'); });
      await insertAccessToken(trx, token());
      await afterCommit(trx, () => { order.push('second'); });
    });
    expect(order).toEqual(['now', 'first', 'second']);
  });

  it('an effect that throws does not fail the commit nor stop the next one', async () => {
    const t = token();
    let next = false;
    const warnings: Error[] = [];
    const onWarning = (w: Error) => { warnings.push(w); };
    process.on('warning', onWarning);
    try {
      await storage.db.transaction().execute(async (trx) => {
        await insertAccessToken(trx, t);
        await afterCommit(trx, () => { throw new Error('effect failed'); });
        await afterCommit(trx, () => { next = true; });
      });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(next).toBe(true);
    expect(await visibleElsewhere(t.tokenHash)).toBe(true);
    expect(warnings.map((w) => w.message)).toContain('effect failed');
  });
});
