import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { signinConfig } from './config.js';
import { createSessionsDomain } from './index.js';
import type { SessionsService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    sessions: SessionsService;
  }
  interface DomainSettings {
    signin: ConfigValues<typeof signinConfig>;
  }
}

export const sessionsDomain = defineDomain({
  name: 'sessions',
  needs: ['securityEvents', 'geo', 'tokens'],
  config: { key: 'signin', title: 'Sign-in confirmation', slice: signinConfig },
  create: ({ platform, services, settings }) => createSessionsDomain({
    db: platform.db, clock: platform.clock, writeEpoch: platform.writeEpoch, secrets: platform.secrets,
    idleLifetimeMs: settings('tokens').sessionWithoutDeviceLifetime * 1000, cacheMs: platform.server.sessionCacheMs,
    securityEvents: services.securityEvents, locate: services.geo.locate,
  }),
});
