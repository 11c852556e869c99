// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
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

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.oauth_refresh_token_reused': 'A refresh token that a refresh with rotation or a token exchange had already replaced was presented again: someone holds a copy of it, so the app\'s sign-in it belonged to ended, its refresh and access tokens (`additionalInfo.clientId`: the app). The network is that of the request that presented the old token. Not recorded for a token replaced before migration 0020, nor for one older than grant ids (migration 0019).',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# OAuth clients, public details (sign-in pages fetch them, ids are 64-bit random and not guessable).
oauthClientInfo                  : ip       : 600 : 15 minutes : 15 minutes : block

# Codes per client address, token requests per client address (relying parties' servers refresh often).
oauthAuthorization               : ip       : 300 : 15 minutes : 15 minutes : block
oauthToken                       : ip       : 3000 : 15 minutes : 15 minutes : block

# Introspection, verification and revocation: resource servers call these for every request they serve.
oauthIntrospect                  : ip       : 20000 : 15 minutes : 15 minutes : block
`;

export const oauthDomain = defineDomain({
  name: 'oauth',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'securityEvents', 'twoStep', 'relyingPartiesPort'],
  config: { key: 'oauth', title: 'OAuth and OpenID Connect', slice: oauthConfig },
  create: async ({ config, platform, services }) => {
    const domain = createOAuthDomain({
      db: platform.db, clock: platform.clock, signingKey: platform.signingKey, issuer: platform.server.publicUrl.replace(/\/+$/, ''), records: services.records, config,
      // Development: a secret generated once into the data folder; production refuses to start without OAUTH_PPID_SECRET.
      ppidSecret: platform.secretOr(config.ppidSecret, 'oauth-ppid-secret'),
      securityEvents: services.securityEvents, writeEpoch: platform.writeEpoch,
      secondFactor: { required: (db, uid) => services.twoStep.isEnabled(uid, db) },
    });
    // Accounts (a floor below) asks its relying parties for stub clients and profile timestamps.
    services.relyingPartiesPort.accept(domain.service);
    // OAUTH_CLIENTS_FILE registers (or updates) its clients at every start; a bad entry stops the start.
    if (config.clientsFile) await domain.service.seedClients(platform.db, readClientsFile(config.clientsFile, platform.clock.now()));
    return domain;
  },
});
