import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { ConfigError } from '../../config-schema.js';
import { rateLimitConfig, rulesInForce } from './config.js';
import { installRateLimits } from './hooks.js';
import { createCustomsDomain } from './index.js';
import { DEFAULT_RULES } from './rules.js';
import type { Customs } from './service.js';

// Customs' manifest: the rate-limit slice and the protocol's rule set. Every domain's own rules
// (its manifest's `rateLimits`) are composed after these, and the hooks that check the routes'
// actions are installed on the whole server.

declare module '../../manifest.js' {
  interface DomainServices {
    customs: Customs;
  }
  interface DomainSettings {
    rateLimit: ConfigValues<typeof rateLimitConfig>;
  }
}

export const customsDomain = defineDomain({
  name: 'customs',
  config: {
    key: 'rateLimit', title: 'Rate limiting', slice: rateLimitConfig,
    check: (values) => {
      try {
        rulesInForce(values, DEFAULT_RULES);
      } catch (err) {
        throw new ConfigError(`RATE_LIMIT_RULES_FILE: ${(err as Error).message}`);
      }
    },
  },
  rateLimits: DEFAULT_RULES,
  create: ({ config, platform }) => {
    const domain = createCustomsDomain({
      enabled: config.enabled, rules: rulesInForce(config, platform.composition.rateLimitRules), redis: platform.redis, redisPrefix: config.redisPrefix,
      failClosed: config.storeFailure === 'closed',
      ignore: { ips: config.ignoreIps, emails: config.ignoreEmails, uids: config.ignoreUids },
      log: platform.log, now: () => platform.clock.now(),
    });
    return { ...domain, install: (server) => installRateLimits(server, domain.service) };
  },
});
