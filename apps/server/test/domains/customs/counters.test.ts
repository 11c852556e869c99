import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryLimitStore, RedisLimitStore, type Counted, type LimitStore } from '../../../src/domains/customs/counters.js';
import { parseRules } from '../../../src/domains/customs/rules.js';

// One contract for both stores: the in-process one (with a hand-driven clock) and Redis (real
// time, so its windows are short).

const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : null;
afterAll(async () => {
  await redis?.quit();
});

interface Harness {
  store: LimitStore;
  /** Lets `ms` pass. */
  wait(ms: number): Promise<void>;
  /** A window/duration unit long enough for a few sequential round trips. */
  unit: number;
}

const cases: [string, () => Harness][] = [
  ['memory', () => {
    let now = 1_000_000;
    return { store: new MemoryLimitStore(() => now), wait: async (ms) => { now += ms; }, unit: 1000 };
  }],
];
if (redis) {
  cases.push(['redis', () => ({
    store: new RedisLimitStore(redis, `test:rl:${randomBytes(6).toString('hex')}:`),
    wait: (ms) => new Promise((r) => setTimeout(r, ms)),
    unit: 400,
  })]);
} else {
  it.skip('Redis store (set TEST_REDIS_URL)', () => {});
}

describe.each(cases)('rate-limit store (%s)', (_name, make) => {
  /** A rule whose window and duration (written `U`) are `ms`. */
  const item = (rule: string, value: string, ms: number, action?: string): Counted => {
    const [r] = parseRules(rule.replace(/U/g, '1 second'));
    return { rule: { ...r!, windowMs: ms, durationMs: ms }, action: action ?? r!.action, value };
  };

  it('lets max attempts through in a window, blocks the next for the duration, and counts nothing while blocked', async () => {
    const { store, wait, unit } = make();
    const login = item('accountLogin : ip_email : 3 : U : U : block', '1.2.3.4 a@example.com', unit * 5);
    for (let i = 0; i < 3; i++) expect((await store.apply([login], true)).blocked).toBe(false);
    const fourth = await store.apply([login], true);
    expect(fourth).toMatchObject({ blocked: true, banned: false });
    expect(fourth.retryAfterMs).toBe(unit * 5);
    // Another action, and another value, are not blocked.
    expect((await store.apply([{ ...login, action: 'accountCreate' }], true)).blocked).toBe(false);
    expect((await store.apply([{ ...login, value: '1.2.3.4 b@example.com' }], true)).blocked).toBe(false);
    await wait(unit * 5 + 50);
    // The block ended and the count started afresh: max attempts again.
    for (let i = 0; i < 3; i++) expect((await store.apply([login], true)).blocked).toBe(false);
    expect((await store.apply([login], true)).blocked).toBe(true);
  });

  it('starts a fresh count once the window from the first attempt has passed', async () => {
    const { store, wait, unit } = make();
    const rule = item('sendVerifyCode : uid : 2 : U : U : block', 'uid1', unit * 2);
    expect((await store.apply([rule], true)).blocked).toBe(false);
    expect((await store.apply([rule], true)).blocked).toBe(false);
    await wait(unit * 2 + 50);
    expect((await store.apply([rule], true)).blocked).toBe(false);
    expect((await store.apply([rule], true)).blocked).toBe(false);
    expect((await store.apply([rule], true)).blocked).toBe(true);
  });

  it('bans a value from every action past a ban rule, and an unblock never lifts a ban', async () => {
    const { store, unit } = make();
    const failed = item('passwordCheckFailed : ip : 2 : U : U : ban', '9.9.9.9', unit * 10);
    // Failures are counted without a check; the third crosses the limit.
    await store.apply([failed], false);
    await store.apply([failed], false);
    expect(await store.banTtl('ip', '9.9.9.9')).toBe(0);
    await store.apply([failed], false);
    expect(await store.banTtl('ip', '9.9.9.9')).toBeGreaterThan(0);
    const other = item('accountCreate : ip : 100 : U : U : block', '9.9.9.9', unit * 10);
    expect(await store.apply([other], true)).toMatchObject({ blocked: true, banned: true });
    await store.clearBlocks([{ property: 'ip', value: '9.9.9.9' }], ['accountCreate', 'passwordCheckFailed']);
    expect((await store.apply([other], true)).banned).toBe(true);
  });

  it('lifts blocks with clearBlocks (what a valid unblock code does)', async () => {
    const { store, unit } = make();
    const login = item('accountLogin : email : 1 : U : U : block', 'a@example.com', unit * 10);
    await store.apply([login], true);
    expect((await store.apply([login], true)).blocked).toBe(true);
    await store.clearBlocks([{ property: 'email', value: 'a@example.com' }], ['accountLogin']);
    expect((await store.apply([login], true)).blocked).toBe(false);
  });

  it('reports once per window past a report rule and never blocks', async () => {
    const { store, unit } = make();
    const endpoint = item('default : ip : 2 : U : U : report', '5.5.5.5', unit * 10, 'GET__v1_session_status');
    const reports: number[] = [];
    for (let i = 0; i < 6; i++) {
      const v = await store.apply([endpoint], true);
      expect(v.blocked).toBe(false);
      reports.push(v.reports.length);
    }
    expect(reports).toEqual([0, 0, 1, 0, 0, 0]);
  });

  it('answers the longest block of several rules', async () => {
    const { store, unit } = make();
    const short = item('accountLogin : ip_email : 1 : U : U : block', '1.1.1.1 x@example.com', unit * 2);
    const long = { ...item('accountLogin : email : 1 : U : U : block', 'x@example.com', unit * 8) };
    await store.apply([short, long], true);
    const v = await store.apply([short, long], true);
    expect(v.blocked).toBe(true);
    expect(v.retryAfterMs).toBe(unit * 8);
  });
});

describe('in-process store bounds', () => {
  it('keeps at most its entry budget, dropping counters before blocks', () => {
    const now = 0;
    const store = new MemoryLimitStore(() => now, 100);
    const [rule] = parseRules('accountLogin : ip : 1 : 1 hour : 1 hour : block');
    // A block first, then a flood of one-off counters.
    store.apply([{ rule: rule!, action: 'accountLogin', value: 'victim-block' }], true);
    store.apply([{ rule: rule!, action: 'accountLogin', value: 'victim-block' }], true);
    for (let i = 0; i < 1000; i++) store.apply([{ rule: rule!, action: 'accountLogin', value: `flood-${i}` }], true);
    expect(store.size).toBeLessThanOrEqual(100);
    expect(store.apply([{ rule: rule!, action: 'accountLogin', value: 'victim-block' }], true).blocked).toBe(true);
    store.close();
  });
});
