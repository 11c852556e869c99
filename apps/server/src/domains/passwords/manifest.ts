import { defineDomain } from '../../manifest.js';
import { createPasswordsDomain } from './index.js';
import type { PasswordsService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    passwords: PasswordsService;
  }
}

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.password_changed': 'The password was changed (`/password/change/finish`); the account\'s other sessions ended. Not recorded for a version-1 to version-2 upgrade of the same password.',
  'account.password_reset_requested': 'A password reset code was emailed to the account (`/password/forgot/send_code` or `/password/forgot/send_otp`; `additionalInfo.method`: `code` or `otp`).',
  'account.password_reset': 'The password was reset with an emailed code (`/account/reset`); every session ended. `additionalInfo.method` is `recovery_key` when a recovery key kept kB; without one, kB and any recovery key are gone.',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

export const passwordsDomain = defineDomain({
  name: 'passwords',
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'accounts', 'sessions', 'tokens', 'recoveryKeys', 'twoStep', 'securityEvents'],
  create: ({ platform, services, settings }) => createPasswordsDomain({
    db: platform.db, clock: platform.clock, scrypt: platform.scrypt, mailer: platform.mailer, records: services.records, accounts: services.accounts,
    sessions: services.sessions, tokens: services.tokens, recoveryKeys: services.recoveryKeys, twoStep: services.twoStep,
    config: settings('tokens'), secret: platform.authSecret, resetLink: platform.link('/complete_reset_password'), securityEvents: services.securityEvents,
    redirectOrigins: platform.allowedOrigins,
  }),
});
