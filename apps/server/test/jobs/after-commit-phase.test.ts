import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { AccountLifecycle } from '../../src/domain.js';
import { enqueue } from '../../src/jobs/index.js';
import { freshStorage, storageDialects } from '../storage/fixtures.js';

// The after-commit phase of the account lifecycle (domain.ts): `after…` hooks run once the
// transaction committed, when what the `on…` hooks wrote is visible to every connection. The
// attacks: an effect for a deletion that rolls back, or one that runs before the change is visible.

describe.each(storageDialects)('the lifecycle\'s after-commit phase (%s)', (dialect) => {
  const fx = freshStorage(dialect);

  /** Two domains: `on…` hooks write a row in the transaction, `after…` hooks look for it from another connection. */
  function lifecycle(seen: string[]) {
    const visible = async (uid: string) => (await fx.other.db.selectFrom('jobs').select('id').where('dedupe_key', '=', uid).execute()).length === 1;
    const life = new AccountLifecycle();
    life.register('first', {
      onAccountDeleted: async (trx, uid) => { await enqueue(trx, systemClock, 'test.deleted', {}, { key: uid }); },
      afterAccountDeleted: async (uid) => { seen.push(`first ${await visible(uid)}`); },
      afterPasswordReset: async () => { throw new Error('boom'); },
    });
    life.register('second', {
      afterAccountDeleted: async (uid) => { seen.push(`second ${await visible(uid)}`); },
      afterPasswordReset: async (uid) => { seen.push(`second reset ${uid}`); },
    });
    return life;
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('runs after the commit, once, when the change is visible elsewhere; in reverse composition order', async () => {
    const seen: string[] = [];
    const life = lifecycle(seen);
    await fx.storage.db.transaction().execute(async (trx) => {
      await life.accountDeleted(trx, 'uid-committed');
      await settle();
      expect(seen).toEqual([]);
    });
    await settle();
    expect(seen).toEqual(['second true', 'first true']);
  });

  it('never runs for a change that rolled back', async () => {
    const seen: string[] = [];
    const life = lifecycle(seen);
    await expect(fx.storage.db.transaction().execute(async (trx) => {
      await life.accountDeleted(trx, 'uid-rolled-back');
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await fx.storage.db.transaction().execute(async (trx) => { await enqueue(trx, systemClock, 'test.other', {}); });
    await settle();
    expect(seen).toEqual([]);
  });

  it('a hook that fails is a warning, and the next still runs', async () => {
    const seen: string[] = [];
    const warnings: Error[] = [];
    const onWarning = (w: Error) => { warnings.push(w); };
    process.on('warning', onWarning);
    try {
      await fx.storage.db.transaction().execute((trx) => lifecycle(seen).passwordReset(trx, 'uid-reset'));
      await settle();
    } finally {
      process.off('warning', onWarning);
    }
    expect(seen).toEqual(['second reset uid-reset']);
    expect(warnings.map((w) => w.message)).toContain('first\'s afterPasswordReset failed: boom');
  });
});
