// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
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

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.linked': 'A Google or Apple account was linked to the account by a sign-in with it (`additionalInfo.provider`).',
  'account.linked_login': 'A sign-in with a linked Google or Apple account started a new session (`additionalInfo.provider`). `verified` is false while the session waits for the account\'s second factor.',
  'account.unlinked': 'A Google or Apple link was removed with `/linked_account/unlink`, or Apple reported the person revoked consent or deleted the Apple ID (`additionalInfo.provider`, `additionalInfo.reason`); the sessions it opened ended.',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Sign-in with Google and Apple: each attempt costs a signature check and, for an unknown key, a
# fetch of the provider's keys. Apple's notifications come from Apple's servers.
linkedAccountLogin               : ip       : 100 : 15 minutes : 15 minutes : block
linkedAccountLogin               : ip       : 500 : 24 hours   : 15 minutes : ban
linkedAccountNotification        : ip       : 1000 : 15 minutes : 15 minutes : block
`;

export const linkedAccountsDomain = defineDomain({
  name: 'linked-accounts',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
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
