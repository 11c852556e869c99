import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { checkSupportConfig, supportConfig } from './config.js';
import { createSupportDomain } from './index.js';
import type { SupportService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    support: SupportService;
  }
  interface DomainSettings {
    support: ConfigValues<typeof supportConfig>;
  }
}

export const supportDomain = defineDomain({
  name: 'support',
  config: { key: 'support', title: 'Support tickets', slice: supportConfig, check: checkSupportConfig },
  create: ({ config, platform }) => createSupportDomain({ db: platform.db, clock: platform.clock, webhooks: platform.webhooks, secret: config.secret }),
});
