import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
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

export const recoveryPhoneDomain = defineDomain({
  name: 'recovery-phone',
  needs: ['records', 'securityEvents', 'twoStep'],
  config: { key: 'recoveryPhone', title: 'Recovery phone', slice: recoveryPhoneConfig },
  create: ({ config, platform, services }) => createRecoveryPhoneDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, securityEvents: services.securityEvents,
    twoStep: services.twoStep, secret: platform.authSecret, sms: platform.sms, ...config,
  }),
});
