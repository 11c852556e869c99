import type { Kysely } from 'kysely';

// Issue 13, second half: where sessions and security events came from (a location looked up in a
// MaxMind-format database when one is configured, kept as JSON), support tickets, the account's
// newsletter choices, and the outbox of signed webhook deliveries (senders/webhook) that forwards
// tickets and newsletter changes, retried until the receiver accepts them.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('session_tokens').addColumn('location', 'varchar(512)').execute();
  await db.schema.alterTable('security_events').addColumn('location', 'varchar(512)').execute();
  await db.schema
    .createTable('support_tickets')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('uid', 'varchar(32)')
    .addColumn('email', 'varchar(255)')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('forwarded_at', 'bigint')
    .execute();
  await db.schema.createIndex('support_tickets_uid').on('support_tickets').column('uid').execute();
  // One row per account with choices (a JSON array): a change locks it, so concurrent changes
  // of one account apply one after the other, each whole.
  await db.schema
    .createTable('account_newsletters')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('newsletters', 'varchar(1024)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('target', 'varchar(32)', (c) => c.notNull())
    .addColumn('event', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'varchar(255)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').column('next_attempt_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('account_newsletters').execute();
  await db.schema.dropTable('support_tickets').execute();
  await db.schema.alterTable('security_events').dropColumn('location').execute();
  await db.schema.alterTable('session_tokens').dropColumn('location').execute();
}
