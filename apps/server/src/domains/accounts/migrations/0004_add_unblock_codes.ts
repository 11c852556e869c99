import type { Kysely } from 'kysely';

// Issue 9: unblock codes (protocol.md §4.4). One live code per account, stored as an HMAC under
// the server's secret (the 8 characters alone are few enough to search offline), for one hour.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('unblock_codes')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('unblock_codes').execute();
}
