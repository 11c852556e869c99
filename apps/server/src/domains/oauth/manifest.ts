import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { oauthConfig } from './config.js';
import { createOAuthDomain, readClientsFile, type OAuthService } from './index.js';

declare module '../../manifest.js' {
  interface DomainServices {
    oauth: OAuthService;
  }
  interface DomainSettings {
    oauth: ConfigValues<typeof oauthConfig>;
  }
}

export const oauthDomain = defineDomain({
  name: 'oauth',
  needs: ['records', 'securityEvents', 'twoStep'],
  config: { key: 'oauth', title: 'OAuth and OpenID Connect', slice: oauthConfig },
  create: async ({ config, platform, services }) => {
    const domain = createOAuthDomain({
      db: platform.db, clock: platform.clock, signingKey: platform.signingKey, issuer: platform.server.publicUrl.replace(/\/+$/, ''), records: services.records, config,
      // Development: a secret generated once into the data folder; production refuses to start without OAUTH_PPID_SECRET.
      ppidSecret: platform.secretOr(config.ppidSecret, 'oauth-ppid-secret'),
      securityEvents: services.securityEvents, writeEpoch: platform.writeEpoch,
      secondFactor: { required: (db, uid) => services.twoStep.isEnabled(uid, db) },
    });
    // OAUTH_CLIENTS_FILE registers (or updates) its clients at every start; a bad entry stops the start.
    if (config.clientsFile) await domain.service.seedClients(platform.db, readClientsFile(config.clientsFile, platform.clock.now()));
    return domain;
  },
});
