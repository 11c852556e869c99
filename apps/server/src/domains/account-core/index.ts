import type { Kysely } from 'kysely';
import type { AccountLifecycle } from '../../domain.js';
import type { Database } from '../../storage/schema.js';
import { AccountRecords, type CodeBudget } from './records.js';
export { accountCoreDomain } from './manifest.js';

// The account core (floor 0 in floors.json): the account and address rows and the account's
// budgets of wrong codes, which every other domain reads through AccountRecords; deleting an
// account here runs every domain's lifecycle hooks first. Sign-up, sign-in and the rest of what a
// person does with an account live in the accounts domain, one floor up.

export { AccountRecords, type CodeBudget, type CodeBudgetKind } from './records.js';
export { accountsConfig } from './config.js';
export { passwordEmailOf, type Account, type EmailRecord, type PasswordFields } from './store.js';
export { joinAccountSummary, type AccountSummaryColumns } from './read-ports.js';
/** The secondary addresses' rows, for the secondary-emails domain (the table is the account core's). */
export * as secondaryAddresses from './secondary-addresses-store.js';

/** The account core's records; built before the domains that read accounts (emails, passwords). */
export function createAccountRecords(deps: { db: Kysely<Database>; lifecycle: AccountLifecycle; codeBudget: CodeBudget }): AccountRecords {
  return new AccountRecords(deps);
}
