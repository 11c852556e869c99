// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { checkNewslettersConfig, newslettersConfig } from './config.js';
import { createNewslettersDomain, NEWSLETTERS_TARGET } from './index.js';
import type { NewslettersService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    newsletters: NewslettersService;
  }
  interface DomainSettings {
    newsletters: ConfigValues<typeof newslettersConfig>;
  }
}

export const newslettersDomain = defineDomain({
  name: 'newsletters',
  tables: new URL('./tables.js', import.meta.url).href,
  config: { key: 'newsletters', title: 'Newsletters', slice: newslettersConfig, check: checkNewslettersConfig },
  create: ({ config, platform }) => {
    platform.webhooks.target(NEWSLETTERS_TARGET, config.webhookUrl ? { url: config.webhookUrl, secret: config.webhookSecret } : null);
    return createNewslettersDomain({ db: platform.db, clock: platform.clock, webhooks: platform.webhooks });
  },
});
