import { readFileSync } from 'node:fs';
import { bool, defineConfig, oneOf, str } from '../../config-schema.js';
import { DEFAULT_RULES, mergeRules, parseRules, type Rule } from './rules.js';

const list = (raw: string): string[] => raw.split(',').map((s) => s.trim()).filter(Boolean);

/** Rate limiting ("customs"): the rules in force and where their counters live. */
export const rateLimitConfig = defineConfig({
  enabled: {
    env: 'RATE_LIMIT_ENABLED', default: true, parse: bool,
    description: 'Check every API request against the rate-limit rules. `false` turns all of it off (for load tests only).',
  },
  rulesFile: {
    env: 'RATE_LIMIT_RULES_FILE', default: '', parse: str,
    description: 'A rules file (one `action : property : maxAttempts : window : duration : policy` per line) that replaces the default rules. Empty: the defaults listed on the rate-limiting page.',
  },
  rules: {
    env: 'RATE_LIMIT_RULES', default: [] as Rule[], parse: parseRules, defaultText: '(none)',
    description: 'Rules that replace the rule of the same action and property (or add to them), `;` between rules: e.g. `accountLogin : ip_email : 10 : 15 minutes : 15 minutes : block`.',
  },
  storeFailure: {
    env: 'RATE_LIMIT_STORE_FAILURE', default: 'closed' as const, parse: oneOf('closed', 'open'),
    description: 'When Redis cannot answer: `closed` refuses rate-limited actions (sign-in, codes, …) with 503/201 and retryAfter; `open` lets them through unchecked. Either way it is logged, and other routes carry on.',
  },
  redisPrefix: {
    env: 'RATE_LIMIT_REDIS_PREFIX', default: 'tessera:rl:', parse: str,
    description: 'Prefix of the rate-limit keys in Redis (with REDIS_URL). Instances that should share limits use the same prefix.',
  },
  ignoreIps: {
    env: 'RATE_LIMIT_IGNORE_IPS', default: [] as string[], parse: list, defaultText: '(none)',
    description: 'Comma-separated client addresses never counted (monitoring, your own test runners).',
  },
  ignoreEmails: {
    env: 'RATE_LIMIT_IGNORE_EMAILS', default: [] as RegExp[], parse: (raw: string) => list(raw).map((p) => new RegExp(p, 'i')), defaultText: '(none)',
    description: 'Comma-separated regular expressions; requests naming a matching address are never counted.',
  },
  ignoreUids: {
    env: 'RATE_LIMIT_IGNORE_UIDS', default: [] as string[], parse: list, defaultText: '(none)',
    description: 'Comma-separated account ids never counted.',
  },
});

/**
 * The rules in force: the defaults (the composed rules of every domain's manifest, or
 * RATE_LIMIT_RULES_FILE's), then RATE_LIMIT_RULES over them.
 */
export function rulesInForce(config: { rulesFile: string; rules: Rule[] }, defaults: string = DEFAULT_RULES): Rule[] {
  const base = config.rulesFile ? parseRules(readFileSync(config.rulesFile, 'utf8')) : parseRules(defaults);
  return mergeRules(base, config.rules);
}
