import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { JobQueue, JobRunner, reviveJob, type JobHandler } from '../../src/jobs/index.js';
import { jobsOf } from '../../src/jobs/store.js';
import type { Storage } from '../../src/storage/db.js';
import { freshStorage, storageDialects } from '../storage/fixtures.js';
import { ManualScheduler } from '../webhook-receiver.js';

// The job queue on every dialect. The attacks: a job that runs for a change that rolled back; a
// failing job that spins, or retries forever, or vanishes; two instances running one job twice.

const quiet = { warn: () => undefined, error: () => undefined };

function queueOn(storage: Storage, clock: ManualClock, retry = { baseMs: 1000, maxMs: 4000, maxAttempts: 3, leaseMs: 10_000 }) {
  const scheduler = new ManualScheduler(clock);
  const runner = new JobRunner({ db: storage.db, clock, log: quiet, scheduler: scheduler.schedule, retry });
  return { queue: new JobQueue(clock, runner), runner, scheduler };
}

/** A handler that records each run, throwing while `failing` is set. */
function recorder() {
  const runs: { id: string; attempt: number; payload: unknown }[] = [];
  const state = { failing: false };
  const handler: JobHandler = {
    run: async (job) => {
      runs.push({ id: job.id, attempt: job.attempt, payload: job.payload });
      if (state.failing) throw new Error(`refused attempt ${job.attempt}`);
    },
  };
  return { runs, state, handler };
}

const rowOf = (storage: Storage, id: string) => storage.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();

describe.each(storageDialects)('the job queue (%s)', (dialect) => {
  const fx = freshStorage(dialect);

  it('never runs a job queued in a transaction that rolled back, not after a commit nor in a sweep', async () => {
    const clock = new ManualClock();
    const { queue, runner } = queueOn(fx.storage, clock);
    const { runs, handler } = recorder();
    runner.register('test.rollback', handler);
    let id = '';
    await expect(fx.storage.db.transaction().execute(async (trx) => {
      id = await queue.enqueue(trx, 'test.rollback', { n: 1 });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await runner.idle();
    expect(await runner.sweep()).toBe(0);
    expect(await runner.runOne(id)).toBe('skipped');
    expect(runs).toEqual([]);
    expect(await rowOf(fx.storage, id)).toBeUndefined();
    runner.close();
  });

  it('runs a committed job once its transaction committed, once, and removes it', async () => {
    const clock = new ManualClock();
    const { queue, runner } = queueOn(fx.storage, clock);
    const { runs, handler } = recorder();
    runner.register('test.commit', handler);
    const id = await fx.storage.db.transaction().execute(async (trx) => {
      const queued = await queue.enqueue(trx, 'test.commit', { to: 'someone@example.com' });
      // Not before the commit: the job's row is not visible to anyone else yet.
      await runner.idle();
      expect(runs).toEqual([]);
      return queued;
    });
    await runner.idle();
    expect(runs).toEqual([{ id, attempt: 1, payload: { to: 'someone@example.com' } }]);
    expect(await rowOf(fx.storage, id)).toBeUndefined();
    await runner.sweep();
    expect(runs).toHaveLength(1);
    runner.close();
  });

  it('retries a failing job with doubling waits and moves it to the dead-letter state after its last try', async () => {
    const clock = new ManualClock();
    const { queue, runner, scheduler } = queueOn(fx.storage, clock);
    const { runs, state, handler } = recorder();
    state.failing = true;
    runner.register('test.failing', handler);
    const id = await queue.enqueue(fx.storage.db, 'test.failing', {}, { start: 'caller' });
    expect(await runner.runOne(id)).toBe('retry');
    expect(await rowOf(fx.storage, id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'refused attempt 1', run_at: clock.now() + 1000 });
    expect(scheduler.pending()).toEqual([1000]);
    // Not due yet: nothing runs, however often asked.
    expect(await runner.runOne(id)).toBe('skipped');
    expect(await runner.sweep()).toBe(0);
    expect(runs).toHaveLength(1);

    clock.advance(1000);
    scheduler.runDue();
    await runner.idle();
    expect(runs).toHaveLength(2);
    expect(await rowOf(fx.storage, id)).toMatchObject({ state: 'pending', attempts: 2, run_at: clock.now() + 2000 });
    clock.advance(2000);
    scheduler.runDue();
    await runner.idle();
    expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(await rowOf(fx.storage, id)).toMatchObject({ state: 'dead', attempts: 3, last_error: 'refused attempt 3' });

    // Dead: kept, and never run again by sweeps or timers.
    clock.advance(3_600_000);
    scheduler.runDue();
    await runner.sweep();
    await runner.idle();
    expect(runs).toHaveLength(3);
    expect(scheduler.pending()).toEqual([]);

    // An operator's retry: due now, with a fresh budget.
    state.failing = false;
    expect(await reviveJob(jobsOf(fx.storage.db), id, clock.now())).toBe(true);
    expect(await runner.sweep()).toBe(1);
    expect(runs.at(-1)).toMatchObject({ attempt: 1 });
    expect(await rowOf(fx.storage, id)).toBeUndefined();
    runner.close();
  });

  it('waits no longer than the longest wait between attempts', async () => {
    const clock = new ManualClock();
    const { queue, runner } = queueOn(fx.storage, clock, { baseMs: 1000, maxMs: 2500, maxAttempts: 10, leaseMs: 10_000 });
    const { state, handler } = recorder();
    state.failing = true;
    runner.register('test.capped', handler);
    const id = await queue.enqueue(fx.storage.db, 'test.capped', {}, { start: 'caller' });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect(await runner.runOne(id)).toBe('retry');
      const row = (await rowOf(fx.storage, id))!;
      waits.push(Number(row.run_at) - clock.now());
      clock.set(Number(row.run_at));
    }
    expect(waits).toEqual([1000, 2000, 2500, 2500]);
    runner.close();
  });

  it('two instances attempting one job at once: one runs it', async () => {
    const clock = new ManualClock();
    const a = queueOn(fx.storage, clock);
    const b = queueOn(fx.other, clock);
    const { runs, handler } = recorder();
    a.runner.register('test.shared', handler);
    b.runner.register('test.shared', handler);
    const id = await a.queue.enqueue(fx.storage.db, 'test.shared', {}, { start: 'caller' });
    const outcomes = await Promise.all([a.runner.runOne(id), b.runner.runOne(id), a.runner.runOne(id), b.runner.runOne(id)]);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(1);
    expect(runs).toHaveLength(1);
    a.runner.close();
    b.runner.close();
  });

  it('an instance that died mid-attempt leaves the job to another once its lease ended', async () => {
    const clock = new ManualClock();
    const { queue, runner } = queueOn(fx.storage, clock);
    const { runs, handler } = recorder();
    runner.register('test.lease', handler);
    const id = await queue.enqueue(fx.storage.db, 'test.lease', {}, { start: 'caller' });
    // The dead instance's claim: attempts counted, due again only after the lease.
    await fx.storage.db.updateTable('jobs').set({ attempts: 1, run_at: clock.now() + 10_000 }).where('id', '=', id).execute();
    expect(await runner.sweep()).toBe(0);
    clock.advance(10_000);
    expect(await runner.sweep()).toBe(1);
    expect(runs).toEqual([{ id, attempt: 2, payload: {} }]);
    runner.close();
  });

  it('an idempotency key writes one job per kind and key; a later time waits for it', async () => {
    const clock = new ManualClock();
    const { queue, runner } = queueOn(fx.storage, clock);
    const { runs, handler } = recorder();
    runner.register('test.keyed', handler);
    const later = clock.now() + 60_000;
    const first = await queue.enqueue(fx.storage.db, 'test.keyed', { n: 1 }, { key: 'invoice-7', runAt: later });
    const again = await fx.storage.db.transaction().execute((trx) => queue.enqueue(trx, 'test.keyed', { n: 2 }, { key: 'invoice-7', runAt: later }));
    const other = await queue.enqueue(fx.storage.db, 'test.keyed', { n: 3 }, { key: 'invoice-8', runAt: later });
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    await runner.idle();
    expect(await runner.sweep()).toBe(0);
    clock.set(later);
    expect(await runner.sweep()).toBe(2);
    // Jobs due at the same time run in no promised order (ids are random).
    expect(runs.map((r) => (r.payload as { n: number }).n).sort()).toEqual([1, 3]);
    runner.close();
  });

  it('leaves jobs of a kind it does not run in the table, without waking for them', async () => {
    const clock = new ManualClock();
    const { queue, runner, scheduler } = queueOn(fx.storage, clock);
    const id = await queue.enqueue(fx.storage.db, 'test.elsewhere', {});
    expect(await runner.sweep()).toBe(0);
    expect(await runner.runOne(id)).toBe('skipped');
    expect(scheduler.pending()).toEqual([]);
    expect(await rowOf(fx.storage, id)).toMatchObject({ state: 'pending', attempts: 0 });
    await fx.storage.db.deleteFrom('jobs').where('id', '=', id).execute();
    runner.close();
  });
});
