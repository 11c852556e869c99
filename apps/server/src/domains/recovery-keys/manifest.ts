import { defineDomain } from '../../manifest.js';
import { createRecoveryKeysDomain } from './index.js';
import type { RecoveryKeysService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    recoveryKeys: RecoveryKeysService;
  }
}

export const recoveryKeysDomain = defineDomain({
  name: 'recovery-keys',
  needs: ['records', 'securityEvents', 'accountResetTokenStrategy'],
  create: ({ platform, services }) => createRecoveryKeysDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, securityEvents: services.securityEvents,
    accountResetToken: services.accountResetTokenStrategy,
  }),
});
