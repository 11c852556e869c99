// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { EMAILS } from './emails.js';
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

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.two_step_enabled': 'Two-step authentication was turned on (`/totp/setup/complete`): sign-ins now need a code from the authenticator app, a backup code or the recovery phone.',
  'account.two_step_disabled': 'Two-step authentication was turned off (`/totp/destroy`); the backup codes went with it.',
  'account.two_step_replaced': 'The authenticator app was replaced by a new one (`/totp/replace/confirm`); codes of the old app no longer work.',
  'account.two_step_session_verified': 'A session was confirmed by a second factor (`additionalInfo.method`: `totp-2fa`, `recovery-code` or `sms-2fa`) and reached AAL2.',
  'account.recovery_codes_replaced': 'New backup codes replaced every earlier one (`/recoveryCodes`).',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Two-step authentication: codes from the app and backup codes (every attempt, and wrong ones also
# count against the account's budget of wrong codes), and new secrets (each renders a QR code).
verifyTotpCode                   : ip_uid   : 10  : 15 minutes : 15 minutes : block
verifyTotpCode                   : ip       : 100 : 24 hours   : 15 minutes : ban
verifyRecoveryCode               : ip_uid   : 10  : 15 minutes : 15 minutes : block
verifyRecoveryCode               : ip       : 100 : 24 hours   : 15 minutes : ban
totpCreate                       : ip_uid   : 10  : 15 minutes : 15 minutes : block
`;

export const twoStepDomain = defineDomain({
  name: 'two-step',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
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
