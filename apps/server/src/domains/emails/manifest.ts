// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import { defineDomain } from '../../manifest.js';
import { EMAILS } from './emails.js';
import { createEmailsDomain } from './index.js';
import type { Confirmations } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    emails: Confirmations;
  }
}

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.login.confirmed': 'A waiting sign-in was confirmed with the emailed code or link (`additionalInfo.method`: `code` or `link`).',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Emailed codes: sends per address and per client address, checks per account.
sendVerifyCode                   : ip_uid   : 5   : 15 minutes : 15 minutes : block
sendVerifyCode                   : ip       : 100 : 24 hours   : 15 minutes : ban
sendVerifyCode                   : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailResendCode          : ip_uid   : 5   : 15 minutes : 15 minutes : block
recoveryEmailResendCode          : ip       : 100 : 24 hours   : 15 minutes : ban
recoveryEmailResendCode          : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailVerifyCode          : ip_uid   : 10  : 10 minutes : 30 minutes : block
recoveryEmailVerifyCode          : ip       : 100 : 24 hours   : 15 minutes : ban
verifySessionCode                : ip_uid   : 10  : 15 minutes : 15 minutes : block
verifySessionCode                : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const emailsDomain = defineDomain({
  name: 'emails',
  tables: new URL('./tables.js', import.meta.url).href,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'sessions', 'securityEvents'],
  create: ({ platform, services, settings }) => {
    const signin = settings('signin');
    return createEmailsDomain({
      db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, sessions: services.sessions, secret: platform.authSecret,
      codeLifetimeMs: signin.codeLifetimeSeconds * 1000, codeTries: signin.codeTries, codeFailuresPerSession: signin.codeFailuresPerSession,
      verifyLink: platform.link('/verify_email'), securityEvents: services.securityEvents,
    });
  },
});
