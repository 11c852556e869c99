import { type Kysely } from 'kysely';

// Issue 14: pairwise subject identifiers and JWT access tokens, both opted into per client. A
// pairwise client's codes keep the `ppid_seed` of the authorization request; an access token keeps
// the subject its client was shown (the pairwise id, or null for the account's uid), so userinfo,
// introspection and /verify show that client the same `sub` the id_token did.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('pairwise_subjects', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('oauth_clients').addColumn('pairwise_rotation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('oauth_clients').addColumn('jwt_access_tokens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('oauth_codes').addColumn('ppid_seed', 'integer').execute();
  await db.schema.alterTable('oauth_access_tokens').addColumn('subject', 'varchar(32)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_access_tokens').dropColumn('subject').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('ppid_seed').execute();
  for (const c of ['jwt_access_tokens', 'pairwise_rotation', 'pairwise_subjects']) {
    await db.schema.alterTable('oauth_clients').dropColumn(c).execute();
  }
}
