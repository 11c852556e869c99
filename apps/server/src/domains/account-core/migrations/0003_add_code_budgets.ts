import { sql, type Kysely } from 'kysely';

// Issue 9, hole 3: guess budgets that a resend does not reset.
// - session_tokens.code_failures counts every wrong 6-digit code of the session, across resends;
//   at the limit the session ends;
// - account_code_failures counts wrong codes of any kind (session, forgot-password, one-time reset
//   codes) per account in a window, across sessions and tokens; at the limit every code check of
//   the account is refused until the window ends.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('session_tokens').addColumn('code_failures', 'integer', (c) => c.notNull().defaultTo(sql`0`)).execute();
  await db.schema
    .createTable('account_code_failures')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_code_failures').execute();
  await db.schema.alterTable('session_tokens').dropColumn('code_failures').execute();
}
