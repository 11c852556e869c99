import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { secondaryEmailsConfig } from './config.js';
import { createSecondaryEmailsDomain } from './index.js';
import type { SecondaryEmails } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    secondaryEmails: SecondaryEmails;
  }
  interface DomainSettings {
    secondaryEmails: ConfigValues<typeof secondaryEmailsConfig>;
  }
}

export const secondaryEmailsDomain = defineDomain({
  name: 'secondary-emails',
  needs: ['records', 'securityEvents'],
  config: { key: 'secondaryEmails', title: 'Secondary addresses', slice: secondaryEmailsConfig },
  create: ({ config, platform, services }) => createSecondaryEmailsDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, securityEvents: services.securityEvents, secret: platform.authSecret,
    pendingMs: config.pendingSeconds * 1000, codeTries: config.codeTries, maxFailures: config.maxFailures, warn: platform.warn,
  }),
});
