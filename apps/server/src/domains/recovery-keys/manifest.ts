// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { EMAILS } from './emails.js';
import { createRecoveryKeysDomain } from './index.js';
import type { RecoveryKeysService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    recoveryKeys: RecoveryKeysService;
  }
}

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.recovery_key_added': 'A recovery key was stored and counts (`/recoveryKey` with `enabled`, or `/recoveryKey/verify` confirming a pending one; `additionalInfo.replaced`: `true` when it replaced an earlier key).',
  'account.recovery_key_removed': 'The account\'s recovery key was deleted (`DELETE /recoveryKey`). A password reset that spends or voids the key records `account.password_reset` instead.',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
recoveryKeyExists                : ip       : 100 : 15 minutes : 15 minutes : block

# Recovery keys: presenting a fingerprint (GET /recoveryKey/{id}, /recoveryKey/verify) and storing one (it emails).
recoveryKeyCheck                 : ip_uid   : 10  : 15 minutes : 15 minutes : block
recoveryKeyCheck                 : ip       : 100 : 24 hours   : 15 minutes : ban
recoveryKeyCreate                : ip_uid   : 10  : 15 minutes : 15 minutes : block
recoveryKeyCreate                : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const recoveryKeysDomain = defineDomain({
  name: 'recovery-keys',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'securityEvents', 'accountResetTokenStrategy'],
  create: ({ platform, services }) => createRecoveryKeysDomain({
    db: platform.db, clock: platform.clock, mailer: platform.mailer, records: services.records, securityEvents: services.securityEvents,
    accountResetToken: services.accountResetTokenStrategy,
  }),
});
