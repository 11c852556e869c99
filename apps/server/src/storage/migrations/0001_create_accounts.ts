import type { Kysely } from 'kysely';

// Accounts, their emails, and the five onepw token tables; plus the OAuth clients and access
// tokens that stub accounts already need (the OAuth issue grows these).
// Portable types only: varchar, bigint, integer, text. Hex ids are lowercase; times are ms.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('email', 'varchar(255)', (c) => c.notNull())
    .addColumn('email_code', 'varchar(32)', (c) => c.notNull())
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('k_a', 'varchar(64)', (c) => c.notNull())
    .addColumn('wrap_wrap_kb', 'varchar(64)', (c) => c.notNull())
    .addColumn('auth_salt', 'varchar(64)', (c) => c.notNull())
    .addColumn('verify_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('verifier_version', 'integer', (c) => c.notNull())
    .addColumn('verifier_set_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('locale', 'varchar(255)')
    .addColumn('locked_at', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .addColumn('metrics_opt_out_at', 'bigint')
    .addColumn('profile_changed_at', 'bigint', (c) => c.notNull())
    .addColumn('keys_changed_at', 'bigint', (c) => c.notNull())
    .addColumn('client_salt', 'varchar(128)')
    .addColumn('verify_hash_v2', 'varchar(64)')
    .addColumn('wrap_wrap_kb_v2', 'varchar(64)')
    .execute();

  await db.schema
    .createTable('emails')
    .addColumn('normalized_email', 'varchar(255)', (c) => c.primaryKey().notNull())
    .addColumn('email', 'varchar(255)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('email_code', 'varchar(32)', (c) => c.notNull())
    .addColumn('is_verified', 'integer', (c) => c.notNull())
    .addColumn('is_primary', 'integer', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('emails_uid').on('emails').column('uid').execute();

  await db.schema
    .createTable('session_tokens')
    .addColumn('token_id', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('auth_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_access_time', 'bigint', (c) => c.notNull())
    .addColumn('auth_at', 'bigint', (c) => c.notNull())
    .addColumn('ua_browser', 'varchar(255)')
    .addColumn('ua_browser_version', 'varchar(255)')
    .addColumn('ua_os', 'varchar(255)')
    .addColumn('ua_os_version', 'varchar(255)')
    .addColumn('ua_device_type', 'varchar(255)')
    .addColumn('ua_form_factor', 'varchar(255)')
    .addColumn('token_verification_id', 'varchar(32)')
    .addColumn('must_verify', 'integer', (c) => c.notNull())
    .addColumn('verification_method', 'integer')
    .addColumn('verified_at', 'bigint')
    .addColumn('verification_reason', 'varchar(32)')
    .execute();
  await db.schema.createIndex('session_tokens_uid').on('session_tokens').column('uid').execute();

  await db.schema
    .createTable('key_fetch_tokens')
    .addColumn('token_id', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('auth_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('key_bundle', 'varchar(192)', (c) => c.notNull())
    .addColumn('session_token_id', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('key_fetch_tokens_uid').on('key_fetch_tokens').column('uid').execute();

  await db.schema
    .createTable('account_reset_tokens')
    .addColumn('token_id', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('auth_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('verification_method', 'integer')
    .execute();

  await db.schema
    .createTable('password_forgot_tokens')
    .addColumn('token_id', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('auth_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('passcode_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('verification_method', 'integer')
    .execute();

  await db.schema
    .createTable('password_change_tokens')
    .addColumn('token_id', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('auth_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_change_tokens_uid').on('password_change_tokens').column('uid').execute();

  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'varchar(16)', (c) => c.primaryKey().notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('image_uri', 'varchar(256)', (c) => c.notNull())
    .addColumn('redirect_uri', 'varchar(256)', (c) => c.notNull())
    .addColumn('hashed_secret', 'varchar(64)')
    .addColumn('hashed_secret_previous', 'varchar(64)')
    .addColumn('trusted', 'integer', (c) => c.notNull())
    .addColumn('public_client', 'integer', (c) => c.notNull())
    .addColumn('can_grant', 'integer', (c) => c.notNull())
    .addColumn('allowed_scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_access_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey().notNull())
    .addColumn('client_id', 'varchar(16)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('profile_changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_access_tokens_uid').on('oauth_access_tokens').column('uid').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['oauth_access_tokens', 'oauth_clients', 'password_change_tokens', 'password_forgot_tokens',
    'account_reset_tokens', 'key_fetch_tokens', 'session_tokens', 'emails', 'accounts']) {
    await db.schema.dropTable(t).execute();
  }
}
