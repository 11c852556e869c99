// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { EMAILS } from './emails.js';
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

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# MFA step-up codes (protocol.md §4.10): sends per action, checks per account. Wrong codes are
# also limited per code, per session and per account (domains/mfa, MFA_OTP_*).
mfaOtpCodeRequestFor2fa          : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestFor2fa          : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestFor2fa          : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForEmail        : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForEmail        : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForEmail        : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForRecoveryKey  : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForRecoveryKey  : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForRecoveryKey  : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForPassword     : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForPassword     : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForPassword     : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForPasskey      : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForPasskey      : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForPasskey      : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeVerify                 : ip_uid   : 10  : 10 minutes : 30 minutes : block
mfaOtpCodeVerify                 : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const mfaDomain = defineDomain({
  name: 'mfa',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
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
