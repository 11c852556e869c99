import { MysqlAdapter, PostgresAdapter, type Kysely } from 'kysely';

// Issue 9: security events (GET /v1/securityEvents). One row per event; `id` counts in insertion
// order, so events of the same millisecond still list newest first. Only the request's network is
// kept (IPv4 /24, IPv6 /48), never its address. Rows live SECURITY_EVENTS_RETENTION_DAYS, at most
// SECURITY_EVENTS_MAX_PER_NAME per account and name: the (uid, name, id) index serves that cap and
// the account's listing, the created_at index the sweep of expired rows.

export async function up(db: Kysely<unknown>): Promise<void> {
  const adapter = db.getExecutor().adapter;
  const postgres = adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('security_events')
    // An auto-incrementing key in each dialect's own way (SQLite needs `integer` for it).
    .addColumn('id', postgres ? 'bigserial' : adapter instanceof MysqlAdapter ? 'bigint' : 'integer', (c) =>
      postgres ? c.primaryKey().notNull() : c.primaryKey().autoIncrement().notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('ip_network', 'varchar(64)')
    .addColumn('additional_info', 'text')
    .execute();
  await db.schema.createIndex('security_events_uid_name').on('security_events').columns(['uid', 'name', 'id']).execute();
  await db.schema.createIndex('security_events_created_at').on('security_events').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('security_events').execute();
}
