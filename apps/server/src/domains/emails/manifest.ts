import { defineDomain } from '../../manifest.js';
import { createEmailsDomain } from './index.js';
import type { Confirmations } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    emails: Confirmations;
  }
}

export const emailsDomain = defineDomain({
  name: 'emails',
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
