import { routesOf, type Domain } from '../../domain.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Trx } from '../../storage/executor.js';
import type { RelyingParties } from './relying-parties.js';
import { accountRoutes } from './routes.js';
import type { AccountsDeps } from './deps.js';
import { AccountsService } from './service.js';
import { AccountSetupService } from './setup.js';
import { deleteUnblockCodes } from './unblock-store.js';
import { UnblockCodes, type LoginBlocks } from './unblock.js';
export { accountsDomain } from './manifest.js';

// The accounts domain (floor 1, sign-in methods): sign-up, sign-in, keys, deletion, stub accounts
// and unblock codes. The account and address rows themselves are the account core's
// (domains/account-core), which this domain reads and writes through AccountRecords.


export { AccountsService } from './service.js';
export type { LinkedAccountsView, SigninConfirmations } from './deps.js';
export { checkPasswordInput, matchPassword, newPassword, type PasswordInput } from './password.js';
export type { RelyingParties, StubClient, TokenSubject } from './relying-parties.js';
export type { LoginBlocks } from './unblock.js';

export interface AccountsDomainDeps extends Omit<AccountsDeps, 'unblockCodes'> {
  /** Lifts rate-limit blocks when a sign-in brings a valid unblock code. */
  blocks: LoginBlocks;
  unblockCodeLifetimeMs: number;
  oauth: RelyingParties;
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
  // The unblock code was mailed to the primary address: it goes with the account and with that address.
  // The account core's own rows go last, in AccountRecords.deleteAccount.
  const hooks = {
    onAccountDeleted: (trx: Trx, uid: string) => deleteUnblockCodes(trx, uid),
    onPrimaryEmailChanged: (trx: Trx, uid: string) => deleteUnblockCodes(trx, uid),
  };
  return { name: 'accounts', service: accounts, hooks, routes: routesOf(accountRoutes, { accounts, setup, unblockCodes, redirectOrigins: deps.redirectOrigins }), setupLinks: setup };
}
