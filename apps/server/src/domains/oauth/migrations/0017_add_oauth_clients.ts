import { MysqlAdapter, sql, type Kysely } from 'kysely';

// Issue 14: the OAuth clients registry grows from the one redirect URI the stub-account clients
// needed into what relying parties register: several redirect URIs (each matched exactly),
// RFC 8252 loopback redirects for native apps (any port on 127.0.0.1 / [::1] / localhost), token
// lifetimes and refresh-token rotation per client. Existing clients keep their one URI.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('redirect_uris', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('local_redirects', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('oauth_clients').addColumn('access_token_ttl', 'integer', (c) => c.notNull().defaultTo(86_400)).execute();
  await db.schema.alterTable('oauth_clients').addColumn('refresh_token_ttl', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('oauth_clients').addColumn('rotate_refresh_tokens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`UPDATE oauth_clients SET redirect_uris = redirect_uri`.execute(db);
  await db.schema.createIndex('oauth_access_tokens_client').on('oauth_access_tokens').column('client_id').execute();

  // Authorization codes: stored as SHA-256, single use. A used code's row stays until it expires,
  // with the hashes of what it issued, so a second use finds and revokes them (RFC 6749 §4.1.2).
  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(16)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('auth_at', 'bigint', (c) => c.notNull())
    .addColumn('amr', 'varchar(64)', (c) => c.notNull())
    .addColumn('aal', 'integer', (c) => c.notNull())
    .addColumn('offline', 'integer', (c) => c.notNull())
    .addColumn('code_challenge', 'varchar(43)')
    .addColumn('redirect_uri', 'varchar(256)')
    .addColumn('nonce', 'varchar(256)')
    .addColumn('keys_jwe', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('issued_access_hash', 'varchar(64)')
    .addColumn('issued_refresh_hash', 'varchar(64)')
    .execute();
  await db.schema.createIndex('oauth_codes_uid').on('oauth_codes').column('uid').execute();
  // Refresh tokens: stored as SHA-256; the hash is also the handle attached clients show.
  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(16)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('auth_at', 'bigint', (c) => c.notNull())
    .addColumn('amr', 'varchar(64)', (c) => c.notNull())
    .addColumn('aal', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_refresh_tokens_uid').on('oauth_refresh_tokens').column('uid').execute();
  await db.schema.createIndex('oauth_refresh_tokens_client').on('oauth_refresh_tokens').column('client_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_refresh_tokens').execute();
  await db.schema.dropTable('oauth_codes').execute();
  // MySQL names the table of an index to drop; the others refuse the clause.
  const drop = db.schema.dropIndex('oauth_access_tokens_client');
  await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('oauth_access_tokens') : drop).execute();
  for (const c of ['rotate_refresh_tokens', 'refresh_token_ttl', 'access_token_ttl', 'local_redirects', 'redirect_uris']) {
    await db.schema.alterTable('oauth_clients').dropColumn(c).execute();
  }
}
