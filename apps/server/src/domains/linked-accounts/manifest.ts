import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { checkLinkedAccountsConfig, linkedAccountsConfig } from './config.js';
import { createLinkedAccountsDomain } from './index.js';
import type { LinkedAccountsService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    linkedAccounts: LinkedAccountsService;
  }
  interface DomainSettings {
    linkedAccounts: ConfigValues<typeof linkedAccountsConfig>;
  }
}

export const linkedAccountsDomain = defineDomain({
  name: 'linked-accounts',
  needs: ['records', 'sessions', 'securityEvents', 'twoStep', 'secondaryEmails'],
  config: { key: 'linkedAccounts', title: 'Linked accounts (Google, Apple)', slice: linkedAccountsConfig, check: checkLinkedAccountsConfig },
  create: ({ config, platform, services }) => createLinkedAccountsDomain({
    db: platform.db, clock: platform.clock, records: services.records, sessions: services.sessions, securityEvents: services.securityEvents, config,
    // Linked sign-ins to accounts with two-step wait for the second factor.
    secondFactor: { required: (db, uid) => services.twoStep.isEnabled(uid, db) },
    // A provider-verified address takes the place of another account's unconfirmed claim (read at request time: composed after).
    claims: { releaseUnconfirmedClaim: (email, ctx, reason) => services.secondaryEmails.releaseUnconfirmedClaim(email, ctx, reason) },
  }),
});
