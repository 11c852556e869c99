import { defineDomain } from '../../manifest.js';
import { createAccountsDomain, type AccountsService } from './index.js';
import type { AccountSetupService } from './setup.js';

declare module '../../manifest.js' {
  interface DomainServices {
    accounts: AccountsService;
    /** The setup links' state, for the page they open (GET /finish_setup). */
    accountSetup: Pick<AccountSetupService, 'setupLinkStatus'>;
  }
}

/** The security events this domain records (its manifest's `securityEvents`; the portal's page lists them). */
const SECURITY_EVENTS = {
  'account.login': 'A sign-in with the password started a new session. `verified` is false while the sign-in (or the sign-up) waits for confirmation by email.',
  'account.login.failure': 'A wrong password was given for the account: at sign-in, or when a session had to prove the password again (reauthentication, password change, account deletion).',
} as const;

declare module '../security-events/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}
}

export const accountsDomain = defineDomain({
  name: 'accounts',
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'sessions', 'tokens', 'oauth', 'emails', 'customs', 'securityEvents', 'linkedAccounts', 'twoStep', 'secondaryEmails'],
  create: ({ platform, services, settings }) => {
    const accounts = settings('accounts');
    const signin = settings('signin');
    const domain = createAccountsDomain({
      db: platform.db, clock: platform.clock, scrypt: platform.scrypt, records: services.records, sessions: services.sessions, tokens: services.tokens,
      // Read at request time: OAuth is composed on the floor above.
      oauth: { timestampFor: (token, field, value) => services.oauth.timestampFor(token, field, value) } as Parameters<typeof createAccountsDomain>[0]['oauth'],
      confirmations: services.emails, secret: platform.authSecret, issuer: platform.server.publicUrl, mailer: platform.mailer,
      blocks: services.customs, unblockCodeLifetimeMs: accounts.unblockCodeLifetimeSeconds * 1000,
      stubClientIds: accounts.stubClientIds.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean),
      setupLink: platform.link('/finish_setup'), securityEvents: services.securityEvents, linkedAccounts: services.linkedAccounts, twoStep: services.twoStep,
      redirectOrigins: platform.allowedOrigins,
      secondaryClaimMs: settings('secondaryEmails').pendingSeconds * 1000,
      warn: platform.warn,
      signin: {
        confirmationEnabled: signin.confirmationEnabled,
        skipForNewAccountsMs: signin.skipForNewAccountsSeconds * 1000,
        forcedEmail: signin.forcedEmailPattern ? new RegExp(signin.forcedEmailPattern, 'i') : null,
      },
    });
    return { ...domain, provides: { accountSetup: domain.setupLinks } };
  },
});
