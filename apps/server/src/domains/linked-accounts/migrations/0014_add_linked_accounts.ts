import type { Kysely } from 'kysely';

// Issue 13: linked third-party accounts (Google, Apple; spec 1 §7 /linked_account/*, protocol.md's
// `linkedAccounts` table). One link per provider per account, and one account per provider subject
// (the id_token's `sub`), so a Google identity can never open two accounts. A session opened by a
// linked sign-in is remembered with its provider (attached clients show it; unlinking and Apple's
// revocations end those sessions). A provider id_token is single-use: its hash is kept until the
// token expires, so a replayed token opens nothing.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('linked_accounts')
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(255)')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('auth_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('linked_accounts_pk', ['uid', 'provider'])
    .execute();
  await db.schema.createIndex('linked_accounts_subject').on('linked_accounts').columns(['provider', 'subject']).unique().execute();
  await db.schema
    .createTable('linked_account_sessions')
    .addColumn('session_id_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('linked_account_sessions_uid').on('linked_account_sessions').column('uid').execute();
  await db.schema
    .createTable('linked_account_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('linked_account_tokens_expiry').on('linked_account_tokens').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('linked_account_tokens').execute();
  await db.schema.dropTable('linked_account_sessions').execute();
  await db.schema.dropTable('linked_accounts').execute();
}
