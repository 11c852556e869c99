// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { EMAILS } from './emails.js';
import { recoveryPhoneConfig } from './config.js';
import { createRecoveryPhoneDomain } from './index.js';
import type { RecoveryPhoneService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    recoveryPhone: RecoveryPhoneService;
  }
  interface DomainSettings {
    recoveryPhone: ConfigValues<typeof recoveryPhoneConfig>;
  }
}

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.recovery_phone_added': 'A recovery phone was confirmed with its SMS code (`/recovery_phone/confirm`).',
  'account.recovery_phone_changed': 'The recovery phone was replaced by a number confirmed with its SMS code (`/mfa/recovery_phone/change`).',
  'account.recovery_phone_removed': 'The recovery phone was removed (`DELETE /recovery_phone`, or with two-step authentication).',
  'account.recovery_phone_reset_verified': 'During a password reset, an SMS code to the recovery phone stood in for the second factor (`/recovery_phone/reset_password/confirm`).',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Recovery phone: SMS sent (each costs money and reaches a person's phone) and codes checked (wrong
# ones also count against the account's budget, and a resend never resets them).
recoveryPhoneSendCode            : ip_uid   : 6   : 1 hour     : 1 hour     : block
recoveryPhoneSendCode            : uid      : 12  : 24 hours   : 24 hours   : block
recoveryPhoneSendCode            : ip       : 50  : 24 hours   : 15 minutes : ban
recoveryPhoneCheck               : ip_uid   : 10  : 15 minutes : 15 minutes : block
recoveryPhoneCheck               : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const recoveryPhoneDomain = defineDomain({
  name: 'recovery-phone',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'securityEvents', 'twoStep'],
  config: { key: 'recoveryPhone', title: 'Recovery phone', slice: recoveryPhoneConfig },
  create: ({ config, platform, services }) => createRecoveryPhoneDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, securityEvents: services.securityEvents,
    twoStep: services.twoStep, secret: platform.authSecret, sms: platform.sms, ...config,
  }),
});
