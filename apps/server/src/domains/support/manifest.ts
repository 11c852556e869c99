// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { checkSupportConfig, supportConfig } from './config.js';
import { createSupportDomain, SUPPORT_TARGET } from './index.js';
import type { SupportService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    support: SupportService;
  }
  interface DomainSettings {
    support: ConfigValues<typeof supportConfig>;
  }
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Support tickets: each one reaches a person at the helpdesk.
supportTicket                    : ip       : 10  : 60 minutes : 60 minutes : block
supportTicket                    : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const supportDomain = defineDomain({
  name: 'support',
  tables: new URL('./tables.js', import.meta.url).href,
  rateLimits: RATE_LIMITS,
  config: { key: 'support', title: 'Support tickets', slice: supportConfig, check: checkSupportConfig },
  create: ({ config, platform }) => {
    platform.webhooks.target(SUPPORT_TARGET, config.webhookUrl ? { url: config.webhookUrl, secret: config.webhookSecret } : null);
    return createSupportDomain({ db: platform.db, clock: platform.clock, webhooks: platform.webhooks, secret: config.secret });
  },
});
