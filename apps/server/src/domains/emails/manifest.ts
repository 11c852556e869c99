import { defineDomain } from '../../manifest.js';
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

export const emailsDomain = defineDomain({
  name: 'emails',
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
