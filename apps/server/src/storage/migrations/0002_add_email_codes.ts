import type { Kysely } from 'kysely';

// Issue 4: emailed codes and mail delivery state.
// - session_tokens gains the hash, expiry and remaining tries of the 6-digit code that confirms it;
// - password_forgot_otps holds the 8-digit reset code of send_otp (one per account);
// - email_bounces records refused and complained addresses, which receive no further mail.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('session_tokens').addColumn('code_hash', 'varchar(64)').execute();
  await db.schema.alterTable('session_tokens').addColumn('code_expires_at', 'bigint').execute();
  await db.schema.alterTable('session_tokens').addColumn('code_tries', 'integer').execute();

  await db.schema
    .createTable('password_forgot_otps')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('email_bounces')
    .addColumn('normalized_email', 'varchar(255)', (c) => c.notNull())
    .addColumn('bounce_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('detail', 'varchar(255)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_bounces_email').on('email_bounces').columns(['normalized_email', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_bounces').execute();
  await db.schema.dropTable('password_forgot_otps').execute();
  await db.schema.alterTable('session_tokens').dropColumn('code_tries').execute();
  await db.schema.alterTable('session_tokens').dropColumn('code_expires_at').execute();
  await db.schema.alterTable('session_tokens').dropColumn('code_hash').execute();
}
