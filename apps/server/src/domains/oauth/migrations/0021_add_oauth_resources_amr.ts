import { type Kysely } from 'kysely';

// Issue 22. RFC 8707 §2: a client names at /token only the resources it is registered for
// (`allowed_resources`, space-separated absolute URIs; NULL for clients registered before: none).
// An access token keeps how the sign-in behind it was authenticated (`amr`, space-separated, and
// `aal`), so /profile and userinfo report that sign-in rather than a constant; rows written before
// keep NULL and report no authentication methods.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('allowed_resources', 'text').execute();
  await db.schema.alterTable('oauth_access_tokens').addColumn('amr', 'varchar(64)').execute();
  await db.schema.alterTable('oauth_access_tokens').addColumn('aal', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_access_tokens').dropColumn('aal').execute();
  await db.schema.alterTable('oauth_access_tokens').dropColumn('amr').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('allowed_resources').execute();
}
