import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { EMAILS } from './emails.js';
import { secondaryEmailsConfig } from './config.js';
import { createSecondaryEmailsDomain } from './index.js';
import type { SecondaryEmails } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    secondaryEmails: SecondaryEmails;
  }
  interface DomainSettings {
    secondaryEmails: ConfigValues<typeof secondaryEmailsConfig>;
  }
}

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.secondary_email_added': 'A secondary address was added, unconfirmed (`/recovery_email`).',
  'account.secondary_email_verified': 'A secondary address was confirmed with its emailed code (`/recovery_email/secondary/verify_code`).',
  'account.secondary_email_removed': 'A secondary address was removed (`/recovery_email/destroy`), or an unconfirmed one was released because Google or Apple verified it for another person\'s sign-in (`additionalInfo.reason`).',
  'account.primary_email_changed': 'A confirmed secondary address became the primary (`/recovery_email/set_primary`); the old primary stays as a secondary address.',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Secondary addresses: adding one and resending its code mail an address the account has not
# proven (per account and per client address). Checking its code guesses at a 6-digit code.
createEmail                      : ip_uid   : 5   : 15 minutes : 15 minutes : block
createEmail                      : ip       : 100 : 24 hours   : 15 minutes : ban
createEmail                      : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailSecondaryResendCode : ip_uid   : 5   : 15 minutes : 15 minutes : block
recoveryEmailSecondaryResendCode : ip       : 100 : 24 hours   : 15 minutes : ban
recoveryEmailSecondaryResendCode : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailSecondaryVerifyCode : ip_uid   : 10  : 10 minutes : 30 minutes : block
recoveryEmailSecondaryVerifyCode : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const secondaryEmailsDomain = defineDomain({
  name: 'secondary-emails',
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'securityEvents'],
  config: { key: 'secondaryEmails', title: 'Secondary addresses', slice: secondaryEmailsConfig },
  create: ({ config, platform, services }) => createSecondaryEmailsDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, securityEvents: services.securityEvents, secret: platform.authSecret,
    pendingMs: config.pendingSeconds * 1000, codeTries: config.codeTries, maxFailures: config.maxFailures, warn: platform.warn,
  }),
});
