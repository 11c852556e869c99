import { describe, expect, it } from 'vitest';
import { afterCommit } from '../../src/storage/after-commit.js';
import { insertAccessToken } from '../../src/domains/oauth/tokens/store.js';
import { accessTokenRow, freshStorage, storageDialects } from './fixtures.js';

// Pushes queued by lifecycle hooks wait for their transaction (storage/after-commit.ts). The attack:
// a push for a change that rolls back, or one that reaches a device before the change is visible,
// which then re-reads the account and finds the old state.

const token = accessTokenRow;

describe.each(storageDialects)('effects after commit (%s)', (dialect) => {
  const fx = freshStorage(dialect, { poolSize: 1 });

  const visibleElsewhere = async (tokenHash: string) => (await fx.other.db.selectFrom('oauth_access_tokens').select('token_hash')
    .where('token_hash', '=', tokenHash).execute()).length === 1;

  it('run once the transaction has committed, when its rows are visible to every connection', async () => {
    const t = token();
    const seen: boolean[] = [];
    await fx.storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, t);
      await afterCommit(trx, () => { seen.push(true); });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual([true]);
    expect(await visibleElsewhere(t.tokenHash)).toBe(true);
  });

  it('never run for a transaction that rolls back, nor later on the same connection', async () => {
    let ran = 0;
    await expect(fx.storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, token());
      await afterCommit(trx, () => { ran++; });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    // The pool has one connection: the next transaction runs on the same one.
    await fx.storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, token());
    });
    expect(ran).toBe(0);
  });

  it('run at once outside a transaction, and in order within one', async () => {
    const order: string[] = [];
    await afterCommit(fx.storage.db, () => { order.push('now'); });
    expect(order).toEqual(['now']);
    await fx.storage.db.transaction().execute(async (trx) => {
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
      await fx.storage.db.transaction().execute(async (trx) => {
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
