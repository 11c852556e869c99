// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
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

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'session.destroy': 'A session was signed out with `/session/destroy` (`additionalInfo.session`: `current`, or `other` when it named another session of the account).',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

export const sessionsDomain = defineDomain({
  name: 'sessions',
  tables: new URL('./tables.js', import.meta.url).href,
  securityEvents: SECURITY_EVENTS,
  needs: ['securityEvents', 'geo', 'tokens'],
  config: { key: 'signin', title: 'Sign-in confirmation', slice: signinConfig },
  create: ({ platform, services, settings }) => createSessionsDomain({
    db: platform.db, clock: platform.clock, writeEpoch: platform.writeEpoch, secrets: platform.secrets,
    idleLifetimeMs: settings('tokens').sessionWithoutDeviceLifetime * 1000, cacheMs: platform.server.sessionCacheMs,
    securityEvents: services.securityEvents, locate: services.geo.locate,
  }),
});
