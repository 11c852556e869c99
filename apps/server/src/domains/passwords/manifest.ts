// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import { defineDomain } from '../../manifest.js';
import { EMAILS } from './emails.js';
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

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Passwords.
passwordChange                   : ip_email : 5   : 15 minutes : 15 minutes : block
passwordChange                   : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendCode           : ip_email : 5   : 15 minutes : 15 minutes : block
passwordForgotSendCode           : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendCode           : email    : 20  : 24 hours   : 24 hours   : block
passwordForgotResendCode         : ip_email : 5   : 15 minutes : 15 minutes : block
passwordForgotResendCode         : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotResendCode         : email    : 20  : 24 hours   : 24 hours   : block
passwordForgotVerifyCode         : ip_email : 10  : 10 minutes : 30 minutes : block
passwordForgotVerifyCode         : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendOtp            : ip_email : 5   : 10 minutes : 15 minutes : block
passwordForgotSendOtp            : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendOtp            : email    : 20  : 24 hours   : 24 hours   : block
passwordForgotVerifyOtp          : ip_email : 5   : 10 minutes : 15 minutes : block
passwordForgotVerifyOtp          : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotVerifyOtpPerDay    : ip_email : 10  : 24 hours   : 24 hours   : block
passwordForgotVerifyOtpPerDay    : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const passwordsDomain = defineDomain({
  name: 'passwords',
  tables: new URL('./tables.js', import.meta.url).href,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'accounts', 'sessions', 'tokens', 'recoveryKeys', 'twoStep', 'securityEvents'],
  create: ({ platform, services, settings }) => createPasswordsDomain({
    db: platform.db, clock: platform.clock, scrypt: platform.scrypt, mailer: platform.mailer, records: services.records, accounts: services.accounts,
    sessions: services.sessions, tokens: services.tokens, recoveryKeys: services.recoveryKeys, twoStep: services.twoStep,
    config: settings('tokens'), secret: platform.authSecret, resetLink: platform.link('/complete_reset_password'), securityEvents: services.securityEvents,
    redirectOrigins: platform.allowedOrigins,
  }),
});
