import { defineDomain } from '../../manifest.js';
import { createPasswordsDomain } from './index.js';
import type { PasswordsService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    passwords: PasswordsService;
  }
}

export const passwordsDomain = defineDomain({
  name: 'passwords',
  needs: ['records', 'accounts', 'sessions', 'tokens', 'recoveryKeys', 'twoStep', 'securityEvents'],
  create: ({ platform, services, settings }) => createPasswordsDomain({
    db: platform.db, clock: platform.clock, scrypt: platform.scrypt, mailer: platform.mailer, records: services.records, accounts: services.accounts,
    sessions: services.sessions, tokens: services.tokens, recoveryKeys: services.recoveryKeys, twoStep: services.twoStep,
    config: settings('tokens'), secret: platform.authSecret, resetLink: platform.link('/complete_reset_password'), securityEvents: services.securityEvents,
    redirectOrigins: platform.allowedOrigins,
  }),
});
