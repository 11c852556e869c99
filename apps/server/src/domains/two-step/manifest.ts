import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { twoStepConfig } from './config.js';
import { createTwoStepDomain } from './index.js';
import type { TwoStepService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    twoStep: TwoStepService;
  }
  interface DomainSettings {
    twoStep: ConfigValues<typeof twoStepConfig>;
  }
}

export const twoStepDomain = defineDomain({
  name: 'two-step',
  needs: ['records', 'sessions', 'tokens', 'securityEvents'],
  config: { key: 'twoStep', title: 'Two-step authentication', slice: twoStepConfig },
  create: ({ config, platform, services }) => createTwoStepDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, sessions: services.sessions, tokens: services.tokens,
    securityEvents: services.securityEvents,
    // Development: a key generated once into the data folder; production refuses to start without TOTP_ENCRYPTION_KEY.
    encryptionKey: platform.secretOr(config.totpEncryptionKey, 'totp-encryption-key'),
    serviceName: config.serviceName, recoveryCodeCount: config.recoveryCodeCount, recoveryCodeNotifyLow: config.recoveryCodeNotifyLow,
  }),
});
