import type { SelectQueryBuilder } from 'kysely';
import type { ColumnsJoin } from '../../storage/read-port.js';
import type { Database } from '../../storage/schema.js';

/** The account columns a session lookup carries (sessions/store.ts turns them into SessionWithAccount.account). */
export interface AccountSummaryColumns {
  email: string;
  email_verified: number;
  verifier_set_at: number;
  locale: string | null;
  disabled_at: number | null;
}

/**
 * Read port: the account's summary joined to another domain's query by its account column (an
 * inner join: a row without its account is no row). The sessions domain's lookup uses it.
 */
export const joinAccountSummary: ColumnsJoin<AccountSummaryColumns> = (qb, uidColumn) =>
  (qb as unknown as SelectQueryBuilder<Database, 'accounts', object>)
    .innerJoin('accounts as a', 'a.uid', uidColumn as 'accounts.uid')
    .select(['a.email', 'a.email_verified', 'a.verifier_set_at', 'a.locale', 'a.disabled_at']) as never;
