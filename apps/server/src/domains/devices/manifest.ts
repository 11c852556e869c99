// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { devicesConfig } from './config.js';
import { createDevicesDomain } from './index.js';
import type { DevicesService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    devices: DevicesService;
  }
  interface DomainSettings {
    devices: ConfigValues<typeof devicesConfig>;
  }
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Device commands: each is stored for its target and pushed to it (a sign-in confirmed at the
# account's AAL sends them; DEVICE_COMMANDS_PENDING_MAX also caps what waits for one device).
invokeDeviceCommand              : ip_uid   : 300 : 15 minutes : 15 minutes : block
invokeDeviceCommand              : uid      : 1000 : 24 hours  : 1 hour     : block
`;

export const devicesDomain = defineDomain({
  name: 'devices',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  rateLimits: RATE_LIMITS,
  needs: ['sessions', 'emails', 'linkedAccounts', 'oauth'],
  config: { key: 'devices', title: 'Devices and push', slice: devicesConfig },
  create: ({ config, platform, services, settings }) => {
    const { db } = platform;
    return createDevicesDomain({
      db, clock: platform.clock, sessions: services.sessions, pushAllowedHosts: config.pushAllowedHosts, push: platform.push, commandsPendingMax: config.commandsPendingMax,
      commandsUrl: new URL('/v1/account/device/commands', platform.publicUrl).toString(),
      confirmations: services.emails, codeLifetimeSeconds: settings('signin').codeLifetimeSeconds,
      sessionProviders: (uid) => services.linkedAccounts.sessionProviders(db, uid),
      refreshTokens: {
        list: (uid) => services.oauth.refreshTokensOf(db, uid),
        revoke: (uid, id, clientId) => services.oauth.revokeRefreshToken(db, uid, id, clientId),
        revokeClient: (uid, clientId) => services.oauth.revokeClientGrants(db, uid, clientId),
      },
    });
  },
});
