import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { JobQueue, JobRunner } from '../../src/jobs/index.js';
import { loadVapidKeys, PushQueue } from '../../src/senders/push/index.js';
import { PushService } from '../push-service.js';
import { freshStorage } from '../storage/fixtures.js';
import { ManualScheduler } from '../webhook-receiver.js';

// Push retries share the job queue: a push the push service failed to take (5xx, 429, no answer)
// is kept as a job and sent again until its TTL has passed. The failures: a retry spun on a push
// the service refused for good (4xx), a "now or never" push (TTL 0) sent late, a push kept past its TTL.

describe('push retries through the job queue', () => {
  const fx = freshStorage('sqlite');
  let service: PushService;
  beforeAll(async () => {
    service = new PushService();
    await service.start();
  });
  afterAll(async () => service?.stop());

  function setUp() {
    const clock = new ManualClock();
    const scheduler = new ManualScheduler(clock);
    const quiet = { warn: () => undefined };
    const runner = new JobRunner({ db: fx.storage.db, clock, log: quiet, scheduler: scheduler.schedule });
    const queue = new PushQueue({
      vapid: loadVapidKeys({ privateKey: '', devFile: `${service.caFile}.vapid`, production: false }),
      subject: 'mailto:ops@example.com', ca: readFileSync(service.caFile, 'utf8'), maxQueued: 10, concurrency: 2, timeoutMs: 5000, log: quiet,
    });
    queue.retryOn(new JobQueue(clock, runner), fx.storage.db, clock);
    const sub = service.subscribe();
    const path = new URL(sub.endpoint).pathname;
    const push = (ttlSeconds: number) => queue.enqueue({
      subscription: { endpoint: sub.endpoint, publicKey: sub.keys.pushPublicKey, authKey: sub.keys.pushAuthKey },
      payload: { command: 'test' }, ttlSeconds, onGone: async () => undefined,
    });
    const jobs = () => fx.storage.db.selectFrom('jobs').selectAll().where('kind', '=', 'push.retry').execute();
    const later = async (ms: number) => {
      clock.advance(ms);
      scheduler.runDue();
      await runner.idle();
    };
    return { clock, runner, queue, sub, path, push, jobs, later, close: async () => { runner.close(); await queue.close(); await fx.storage.db.deleteFrom('jobs').execute(); } };
  }

  it('keeps a push the service failed to take and sends it once the service is back', async () => {
    const s = setUp();
    service.behaviour.set(s.path, { status: 503 });
    s.push(600);
    await s.queue.idle();
    expect(await s.jobs()).toMatchObject([{ state: 'pending', attempts: 0 }]);
    service.behaviour.set(s.path, { status: 201 });
    await s.later(10_000);
    expect(service.pushesFor(s.sub)).toEqual([{ command: 'test' }, { command: 'test' }]);
    expect(await s.jobs()).toEqual([]);
    await s.close();
  });

  it('retries with the queue\'s backoff while the service keeps failing', async () => {
    const s = setUp();
    service.behaviour.set(s.path, { status: 429 });
    s.push(600);
    await s.queue.idle();
    await s.later(10_000);
    expect(await s.jobs()).toMatchObject([{ attempts: 1, last_error: 'HTTP 429' }]);
    expect(Number((await s.jobs())[0]!.run_at)).toBe(s.clock.now() + 10_000);
    await s.later(10_000);
    expect(await s.jobs()).toMatchObject([{ attempts: 2 }]);
    expect(Number((await s.jobs())[0]!.run_at)).toBe(s.clock.now() + 20_000);
    await s.close();
  });

  it('keeps nothing for a push that may not wait (TTL 0) nor for one refused for good (4xx)', async () => {
    const s = setUp();
    service.behaviour.set(s.path, { status: 503 });
    s.push(0);
    service.behaviour.set(s.path, { status: 400 });
    await s.queue.idle();
    s.push(600);
    await s.queue.idle();
    expect(await s.jobs()).toEqual([]);
    await s.close();
  });

  it('drops a kept push once its TTL has passed', async () => {
    const s = setUp();
    service.behaviour.set(s.path, { status: 503 });
    s.push(5);
    await s.queue.idle();
    const before = service.pushesFor(s.sub).length;
    service.behaviour.set(s.path, { status: 201 });
    await s.later(10_000);
    expect(service.pushesFor(s.sub)).toHaveLength(before);
    expect(await s.jobs()).toEqual([]);
    await s.close();
  });
});
