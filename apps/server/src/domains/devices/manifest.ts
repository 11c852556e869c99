import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
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

export const devicesDomain = defineDomain({
  name: 'devices',
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
