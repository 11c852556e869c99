// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { securityEventsConfig } from './config.js';
import { createSecurityEventsDomain } from './index.js';
import { SECURITY_EVENTS } from './names.js';
import type { SecurityEventsService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    securityEvents: SecurityEventsService;
  }
  interface DomainSettings {
    securityEvents: ConfigValues<typeof securityEventsConfig>;
  }
}

export const securityEventsDomain = defineDomain({
  name: 'security-events',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  needs: ['geo'],
  config: { key: 'securityEvents', title: 'Security events', slice: securityEventsConfig },
  securityEvents: SECURITY_EVENTS,
  create: ({ config, platform, services }) => createSecurityEventsDomain({
    db: platform.db, clock: platform.clock, locate: services.geo.locate, names: Object.keys(platform.composition.securityEvents),
    retentionMs: config.retentionDays * 86_400_000, maxPerName: config.maxPerName, warn: platform.warn,
  }),
});
