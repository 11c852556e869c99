import { sql, type Kysely } from 'kysely';

// Issue 9, hole 10: /account/set_password takes only an access token of the client that created
// the stub account, so the account records that client. Stubs made before this migration get the
// client of the access token issued with them (same account, made in the same transaction, so
// created at the same instant); a stub whose token is gone keeps none, and then only its emailed
// setup link can set its first password.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('stub_client_id', 'varchar(16)').execute();
  await sql`
    UPDATE accounts SET stub_client_id = (
      SELECT MIN(t.client_id) FROM oauth_access_tokens t WHERE t.uid = accounts.uid AND t.created_at = accounts.created_at
    )
    WHERE verifier_set_at = 0
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('stub_client_id').execute();
}
