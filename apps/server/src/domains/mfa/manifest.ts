import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { mfaConfig } from './config.js';
import { createMfaDomain } from './index.js';
import type { MfaService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    mfa: MfaService;
  }
  interface DomainSettings {
    mfa: ConfigValues<typeof mfaConfig>;
  }
}

export const mfaDomain = defineDomain({
  name: 'mfa',
  needs: ['records', 'sessions', 'twoStep'],
  config: { key: 'mfa', title: 'MFA step-up tokens', slice: mfaConfig },
  create: ({ config, platform, services }) => createMfaDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, sessions: services.sessions, secret: platform.authSecret,
    twoStep: services.twoStep,
    jwt: {
      // Development: a key generated once into the data folder; production refuses to start without MFA_JWT_SECRET.
      secret: platform.secretOr(config.jwtSecret, 'mfa-jwt-secret'),
      issuer: config.jwtIssuer || platform.publicUrl.host,
      audience: config.jwtAudience,
      lifetimeSeconds: config.jwtLifetimeSeconds,
    },
    otp: { lifetimeMs: config.otpLifetimeSeconds * 1000, tries: config.otpTries, failuresPerSession: config.otpFailuresPerSession },
  }),
});
