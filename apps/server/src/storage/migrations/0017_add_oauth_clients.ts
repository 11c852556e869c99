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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // MySQL names the table of an index to drop; the others refuse the clause.
  const drop = db.schema.dropIndex('oauth_access_tokens_client');
  await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('oauth_access_tokens') : drop).execute();
  for (const c of ['rotate_refresh_tokens', 'refresh_token_ttl', 'access_token_ttl', 'local_redirects', 'redirect_uris']) {
    await db.schema.alterTable('oauth_clients').dropColumn(c).execute();
  }
}
