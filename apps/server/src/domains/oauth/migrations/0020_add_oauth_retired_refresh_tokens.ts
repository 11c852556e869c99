import { MysqlAdapter, type Kysely } from 'kysely';

// RFC 9700 §4.14.2: refresh-token rotation with reuse detection. A refresh token replaced by a
// rotation or a token exchange is remembered here (its SHA-256 only, with the grant it belonged
// to), so that presenting it again is recognised as the use of a copy: the grant is then revoked.
// Rows go with their grant's revocation, with the account, and 90 days after retirement.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_retired_refresh_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('grant_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(16)', (c) => c.notNull())
    .addColumn('retired_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_retired_refresh_tokens_uid').on('oauth_retired_refresh_tokens').columns(['uid', 'grant_id']).execute();
  await db.schema.createIndex('oauth_retired_refresh_tokens_retired').on('oauth_retired_refresh_tokens').column('retired_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // MySQL names the table of an index to drop; the others refuse the clause.
  for (const name of ['oauth_retired_refresh_tokens_retired', 'oauth_retired_refresh_tokens_uid']) {
    const drop = db.schema.dropIndex(name);
    await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('oauth_retired_refresh_tokens') : drop).execute();
  }
  await db.schema.dropTable('oauth_retired_refresh_tokens').execute();
}
