import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Property, Rule } from './rules.js';

// Where attempts are counted and blocks kept: in process (one instance) or in Redis (every
// instance shares them). Both run the same algorithm, per request, as one step:
//
// 1. (check) If any value is banned, or blocked for its action, refuse without counting.
// 2. Count one attempt per (rule, value) in a fixed window that starts at the first attempt.
// 3. Past `max`: `block` writes a block of that action for `duration`, `ban` a ban of the value
//    for every action; either resets the count and refuses this attempt. `report` only reports,
//    once per window.

/** One rule applied to one property value of a request (e.g. accountLogin : ip_email = "1.2.3.4 a@b.c"). */
export interface Counted {
  rule: Rule;
  /** The action counted: the rule's, or the endpoint's for the `default` rule. */
  action: string;
  value: string;
}

export interface Verdict {
  blocked: boolean;
  /** The longest block or ban in force, ms. */
  retryAfterMs: number;
  /** A ban is among them (an unblock code cannot lift a ban). */
  banned: boolean;
  /** Items whose report-policy limit was just crossed. */
  reports: Counted[];
}

export const ALLOWED: Verdict = Object.freeze({ blocked: false, retryAfterMs: 0, banned: false, reports: [] }) as Verdict;

export interface LimitStore {
  /** Step 1 (when `check`) then steps 2–3 over the items; with `check` false it only counts (failures). */
  apply(items: Counted[], check: boolean): Verdict | Promise<Verdict>;
  /** Remaining ms of a ban of the value (0: none). */
  banTtl(property: Property, value: string): number | Promise<number>;
  /** Lifts blocks (never bans) of the values for the actions. */
  clearBlocks(values: { property: Property; value: string }[], actions: string[]): Promise<void>;
}

const banKey = (property: string, value: string) => `ban:${property}=${value}`;
const blockKey = (property: string, action: string, value: string) => `block:${property}=${value}:${action}`;
// The rule's numbers are part of the key: a changed rule starts counting afresh.
const countKey = (c: Counted) => `count:${c.rule.property}=${c.value}:${c.action}:${c.rule.max}-${c.rule.windowMs}-${c.rule.durationMs}`;

interface Entry {
  n: number;
  expiresAt: number;
}

/**
 * The in-process store: a Map with expiry. Bounded: past `maxEntries`, expired entries go first,
 * then the oldest counters (blocks and bans are kept — an attacker who floods it with new values
 * can at worst restart some of their own counts, never lift a block).
 */
export class MemoryLimitStore implements LimitStore {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number, private readonly maxEntries = 500_000) {
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private ttl(key: string, now: number): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    if (e.expiresAt <= now) {
      this.entries.delete(key);
      return 0;
    }
    return e.expiresAt - now;
  }

  private set(key: string, n: number, expiresAt: number): void {
    this.entries.delete(key);
    this.entries.set(key, { n, expiresAt });
    if (this.entries.size > this.maxEntries) this.evict();
  }

  banTtl(property: Property, value: string): number {
    return this.ttl(banKey(property, value), this.now());
  }

  apply(items: Counted[], check: boolean): Verdict {
    const now = this.now();
    if (check) {
      let worst = 0;
      let banned = false;
      for (const item of items) {
        const ban = this.ttl(banKey(item.rule.property, item.value), now);
        if (ban > 0) banned = true;
        const block = item.rule.policy === 'report' ? 0 : this.ttl(blockKey(item.rule.property, item.action, item.value), now);
        worst = Math.max(worst, ban, block);
      }
      if (worst > 0) return { blocked: true, retryAfterMs: worst, banned, reports: [] };
    }
    const verdict: Verdict = { blocked: false, retryAfterMs: 0, banned: false, reports: [] };
    for (const item of items) {
      const { rule } = item;
      const key = countKey(item);
      const e = this.entries.get(key);
      const n = e && e.expiresAt > now ? ++e.n : (this.set(key, 1, now + rule.windowMs), 1);
      if (n <= rule.max) continue;
      if (rule.policy === 'report') {
        if (n === rule.max + 1) verdict.reports.push(item);
        continue;
      }
      this.entries.delete(key);
      const target = rule.policy === 'ban' ? banKey(rule.property, item.value) : blockKey(rule.property, item.action, item.value);
      this.set(target, 1, now + rule.durationMs);
      verdict.blocked = true;
      verdict.banned ||= rule.policy === 'ban';
      verdict.retryAfterMs = Math.max(verdict.retryAfterMs, rule.durationMs);
    }
    return verdict;
  }

  async clearBlocks(values: { property: Property; value: string }[], actions: string[]): Promise<void> {
    for (const { property, value } of values) for (const action of actions) this.entries.delete(blockKey(property, action, value));
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(key);
  }

  private evict(): void {
    this.sweep();
    // Still full: drop the oldest counters (Map order is insertion order; `set` re-inserts).
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries * 0.9) break;
      if (key.startsWith('count:')) this.entries.delete(key);
    }
  }
}

// One round trip per request: every ban, block and counter of the request in one script, so two
// instances counting the same value at once cannot both slip under the limit.
// KEYS: per item ban, block, counter. ARGV[1]: check (1/0); then per item max, window, duration, policy.
const APPLY_SCRIPT = `
local n = #KEYS / 3
if ARGV[1] == '1' then
  local worst, banned = 0, 0
  for i = 0, n - 1 do
    local ban = redis.call('PTTL', KEYS[i * 3 + 1])
    if ban > 0 then banned = 1; if ban > worst then worst = ban end end
    if tonumber(ARGV[i * 4 + 5]) ~= 2 then
      local block = redis.call('PTTL', KEYS[i * 3 + 2])
      if block > worst then worst = block end
    end
  end
  if worst > 0 then return {1, worst, banned} end
end
local out = {0, 0, 0}
for i = 0, n - 1 do
  local max, window, duration, policy = tonumber(ARGV[i * 4 + 2]), tonumber(ARGV[i * 4 + 3]), tonumber(ARGV[i * 4 + 4]), tonumber(ARGV[i * 4 + 5])
  local count = redis.call('INCR', KEYS[i * 3 + 3])
  if count == 1 then redis.call('PEXPIRE', KEYS[i * 3 + 3], window) end
  if count > max then
    if policy == 2 then
      if count == max + 1 then table.insert(out, i) end
    else
      local target = KEYS[i * 3 + 2]
      if policy == 1 then target = KEYS[i * 3 + 1]; out[3] = 1 end
      redis.call('SET', target, '1', 'PX', duration)
      redis.call('DEL', KEYS[i * 3 + 3])
      out[1] = 1
      if duration > out[2] then out[2] = duration end
    end
  end
end
return out
`;

const POLICY_CODE = { block: 0, ban: 1, report: 2 } as const;

type RedisWithApply = Redis & { tesseraRateLimit(numKeys: number, ...args: (string | number)[]): Promise<number[]> };

/**
 * Counters and blocks in Redis, shared by every instance. Values are hashed into the keys, so
 * Redis holds no addresses in the clear. Every call gives up after `timeoutMs`: a stalled Redis
 * must not stall requests (the caller decides whether that fails open or closed).
 */
export class RedisLimitStore implements LimitStore {
  private readonly redis: RedisWithApply;

  constructor(redis: Redis, private readonly prefix = 'tessera:rl:', private readonly timeoutMs = 1000) {
    if (!(redis as unknown as Partial<RedisWithApply>).tesseraRateLimit) redis.defineCommand('tesseraRateLimit', { lua: APPLY_SCRIPT });
    this.redis = redis as unknown as RedisWithApply;
  }

  private hashed(value: string): string {
    return createHash('sha256').update(value).digest('base64url').slice(0, 22);
  }

  private timed<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }

  async apply(items: Counted[], check: boolean): Promise<Verdict> {
    if (items.length === 0) return ALLOWED;
    const keys: string[] = [];
    const args: (string | number)[] = [check ? '1' : '0'];
    for (const item of items) {
      const value = this.hashed(item.value);
      keys.push(
        this.prefix + banKey(item.rule.property, value),
        this.prefix + blockKey(item.rule.property, item.action, value),
        this.prefix + countKey({ ...item, value }),
      );
      args.push(item.rule.max, item.rule.windowMs, item.rule.durationMs, POLICY_CODE[item.rule.policy]);
    }
    const out = await this.timed(this.redis.tesseraRateLimit(keys.length, ...keys, ...args));
    const [blocked, retryAfterMs, banned, ...reported] = out.map(Number);
    return { blocked: blocked === 1, retryAfterMs: retryAfterMs ?? 0, banned: banned === 1, reports: reported.map((i) => items[i]!) };
  }

  async banTtl(property: Property, value: string): Promise<number> {
    return Math.max(0, await this.timed(this.redis.pttl(this.prefix + banKey(property, this.hashed(value)))));
  }

  async clearBlocks(values: { property: Property; value: string }[], actions: string[]): Promise<void> {
    const keys = values.flatMap(({ property, value }) => actions.map((action) => this.prefix + blockKey(property, action, this.hashed(value))));
    if (keys.length) await this.timed(this.redis.del(...keys));
  }
}
