import type { Kysely } from 'kysely';

// Issue 22, hole 2: wrong password-reset codes (the emailed forgot codes and the one-time codes,
// which anyone who names the address can try) count per account in a window of their own, apart
// from account_code_failures, which guards the owner's own confirmations and second factor.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_reset_code_failures')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_reset_code_failures').execute();
}
