import type { Redis } from 'ioredis';
import type { Domain } from '../../domain.js';
import { MemoryLimitStore, RedisLimitStore } from './counters.js';
import { Customs, type CustomsLog } from './service.js';
import type { Rule } from './rules.js';
export { customsDomain } from './manifest.js';

// The customs domain: rate limiting (protocol.md §7). Routes of every domain declare the actions
// they count as in `config.rateLimit`; app.ts installs the hooks that check them
// (`installRateLimits`), and the accounts domain lifts blocks with unblock codes.

export { rateLimitConfig, rulesInForce } from './config.js';
export { installRateLimits, endpointAction, type RouteRateLimit } from './hooks.js';
export { Customs, addressKey, type Subject } from './service.js';
export { DEFAULT_RULES, formatDuration, parseRules, type Rule } from './rules.js';

export interface CustomsDomainDeps {
  enabled: boolean;
  rules: Rule[];
  redis: Redis | null;
  redisPrefix: string;
  failClosed: boolean;
  ignore: { ips: string[]; emails: RegExp[]; uids: string[] };
  log: CustomsLog;
  now: () => number;
}

export interface CustomsDomain extends Domain<Customs> {
  close(): void;
}

export function createCustomsDomain(deps: CustomsDomainDeps): CustomsDomain {
  const local = new MemoryLimitStore(deps.now);
  const customs = new Customs({
    enabled: deps.enabled, rules: deps.rules, local,
    store: deps.redis ? new RedisLimitStore(deps.redis, deps.redisPrefix) : local, shared: deps.redis !== null,
    failClosed: deps.failClosed, ignore: deps.ignore, log: deps.log, now: deps.now,
  });
  return { name: 'customs', service: customs, close: () => local.close() };
}
