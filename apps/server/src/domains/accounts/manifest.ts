// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { EMAILS } from './emails.js';
import { createAccountsDomain, type AccountsService } from './index.js';
import type { RelyingParties } from './relying-parties.js';
import type { AccountSetupService } from './setup.js';

/** Accounts' RelyingParties port, filled by the domain that implements it. */
export interface RelyingPartiesPort {
  accept(implementation: RelyingParties): void;
}

declare module '../../manifest.js' {
  interface DomainServices {
    accounts: AccountsService;
    /** Where the relying parties' domain (OAuth, a floor above) hands in what accounts asks of it. */
    relyingPartiesPort: RelyingPartiesPort;
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

/** Default rate-limit rules of this domain's actions (protocol.md §7.1 grammar; customs composes them). */
const RATE_LIMITS = `
# Account creation and existence checks.
accountCreate                    : ip       : 100 : 24 hours   : 24 hours   : block
accountStatusCheck               : ip       : 100 : 15 minutes : 15 minutes : block
getCredentialsStatus             : ip       : 100 : 15 minutes : 15 minutes : block

# Sign-in.
accountLogin                     : ip_email : 5   : 15 minutes : 15 minutes : block
accountLogin                     : ip       : 100 : 24 hours   : 15 minutes : ban
accountLogin                     : email    : 50  : 24 hours   : 24 hours   : block
authenticatedAccountLogin        : ip_uid   : 5   : 15 minutes : 15 minutes : block
authenticatedAccountLogin        : ip       : 100 : 24 hours   : 15 minutes : ban
authenticatedAccountLogin        : email    : 50  : 24 hours   : 24 hours   : block

# Unblock codes.
sendUnblockCode                  : ip_email : 5   : 15 minutes : 15 minutes : block
sendUnblockCode                  : ip       : 100 : 24 hours   : 15 minutes : ban
sendUnblockCode                  : email    : 10  : 24 hours   : 24 hours   : block
rejectUnblockCode                : ip       : 100 : 24 hours   : 15 minutes : ban

# Account deletion.
accountDestroy                   : ip_uid   : 5   : 15 minutes : 15 minutes : block
accountDestroy                   : ip       : 100 : 24 hours   : 15 minutes : ban
`;

export const accountsDomain = defineDomain({
  name: 'accounts',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  emails: EMAILS,
  rateLimits: RATE_LIMITS,
  securityEvents: SECURITY_EVENTS,
  needs: ['records', 'sessions', 'tokens', 'emails', 'customs', 'securityEvents', 'linkedAccounts', 'twoStep', 'secondaryEmails'],
  create: ({ platform, services, settings }) => {
    const accounts = settings('accounts');
    const signin = settings('signin');
    // OAuth sits a floor above: it hands its side of the RelyingParties port in when it is composed
    // (relyingPartiesPort below); until then stub accounts and profile timestamps have no relying party.
    let relyingParties: RelyingParties | null = null;
    const port = (): RelyingParties => {
      if (!relyingParties) throw new Error('no relying parties: the oauth domain is not composed');
      return relyingParties;
    };
    const domain = createAccountsDomain({
      db: platform.db, clock: platform.clock, scrypt: platform.scrypt, records: services.records, sessions: services.sessions, tokens: services.tokens,
      oauth: {
        findClient: (db, clientId) => port().findClient(db, clientId),
        clientSecretMatches: (client, secret) => port().clientSecretMatches(client, secret),
        issueAccessToken: (db, t) => port().issueAccessToken(db, t),
        timestampFor: (token, field, value) => port().timestampFor(token, field, value),
      },
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
    const relyingPartiesPort: RelyingPartiesPort = { accept: (implementation) => void (relyingParties = implementation) };
    return { ...domain, provides: { accountSetup: domain.setupLinks, relyingPartiesPort } };
  },
});
