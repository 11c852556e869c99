import { MysqlAdapter, type Kysely } from 'kysely';

// RFC 7009 §2.1: revoking a refresh token also ends the access tokens of the same authorization
// grant. Every grant (a code redeemed, an fxa-credentials grant, ...) gets a random id that its
// refresh token and every access token minted from it carry, so revocation deletes them by it.
// Rows written before this migration keep NULL: their access tokens live until they expire, as before.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_refresh_tokens').addColumn('grant_id', 'varchar(32)').execute();
  await db.schema.alterTable('oauth_access_tokens').addColumn('grant_id', 'varchar(32)').execute();
  await db.schema.createIndex('oauth_access_tokens_grant').on('oauth_access_tokens').column('grant_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // MySQL names the table of an index to drop; the others refuse the clause.
  const drop = db.schema.dropIndex('oauth_access_tokens_grant');
  await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('oauth_access_tokens') : drop).execute();
  await db.schema.alterTable('oauth_access_tokens').dropColumn('grant_id').execute();
  await db.schema.alterTable('oauth_refresh_tokens').dropColumn('grant_id').execute();
}
