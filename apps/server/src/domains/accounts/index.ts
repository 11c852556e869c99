import type { Kysely } from 'kysely';
import { routesOf, type AccountLifecycle, type Domain } from '../../domain.js';
import type { Database } from '../../storage/schema.js';
import type { OAuthService } from '../oauth/index.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import { AccountRecords, type CodeBudget } from './records.js';
import { accountRoutes } from './routes.js';
import { AccountsService, type AccountsDeps } from './service.js';
import { AccountSetupService } from './setup.js';
import { UnblockCodes, type LoginBlocks } from './unblock.js';

// The accounts domain, the account core: account and address rows (AccountRecords, which other
// domains read and whose deletion runs every domain's lifecycle hooks), sign-up, sign-in, keys,
// deletion and stub accounts.

export { accountsConfig } from './config.js';
export { AccountRecords, type CodeBudgetKind } from './records.js';
export { AccountsService, type LinkedAccountsView, type SigninConfirmations } from './service.js';
export { checkPasswordInput, matchPassword, newPassword, type PasswordInput } from './password.js';
export { passwordEmailOf, type Account, type EmailRecord } from './store.js';
export type { LoginBlocks } from './unblock.js';

/** The account core's records; built before the domains that read accounts (emails, passwords). */
export function createAccountRecords(deps: { db: Kysely<Database>; lifecycle: AccountLifecycle; codeBudget: CodeBudget }): AccountRecords {
  return new AccountRecords(deps);
}

export interface AccountsDomainDeps extends Omit<AccountsDeps, 'unblockCodes'> {
  /** Lifts rate-limit blocks when a sign-in brings a valid unblock code. */
  blocks: LoginBlocks;
  unblockCodeLifetimeMs: number;
  oauth: OAuthService;
  mailer: Mailer;
  /** Clients allowed to create stub accounts (ACCOUNT_STUB_CLIENT_IDS). */
  stubClientIds: readonly string[];
  /** Builds the link of the auth server's /finish_setup page. */
  setupLink(params: Record<string, string | undefined>): string;
  /** Key for the setup tokens' HMAC. */
  secret: string;
  /** The server's public URL: the setup tokens' issuer. */
  issuer: string;
  /** The origins `redirectTo` may name (PUBLIC_URL, CONTENT_URL, REDIRECT_ALLOWED_ORIGINS); others get 400/107. */
  redirectOrigins: readonly string[];
}

const DAY_MS = 86_400_000;

/** The accounts domain, and the setup links' state for the page they open (GET /finish_setup). */
export function createAccountsDomain(deps: AccountsDomainDeps): Domain<AccountsService> & { setupLinks: Pick<AccountSetupService, 'setupLinkStatus'> } {
  const unblockCodes = new UnblockCodes({ ...deps, lifetimeMs: deps.unblockCodeLifetimeMs });
  const accounts = new AccountsService({ ...deps, unblockCodes });
  const setup = new AccountSetupService({ ...deps, accessTokenTtlMs: DAY_MS, setupTokenTtlMs: 30 * DAY_MS });
  // No hooks: the account core's own rows go last, in AccountRecords.deleteAccount.
  return { name: 'accounts', service: accounts, routes: routesOf(accountRoutes, { accounts, setup, unblockCodes, redirectOrigins: deps.redirectOrigins }), setupLinks: setup };
}
