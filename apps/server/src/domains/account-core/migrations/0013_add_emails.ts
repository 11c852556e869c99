import { sql, type Kysely } from 'kysely';

// Issue 13: secondary (recovery) addresses. The `emails` table (0001) already holds every address of
// an account, the primary included, keyed by the lower-cased address: that primary key is the one
// uniqueness rule across primaries, verified secondaries and pending claims, so two accounts adding
// the same address at once cannot both succeed (the second INSERT fails, whatever it read before).
// - emails gains the 6-digit code that proves a secondary address: its HMAC, expiry and remaining
//   tries, and the wrong codes the address has seen across resends (a resend does not reset them);
// - accounts.email becomes the primary address (what sign-in looks up and mail goes to), and
//   accounts.password_email keeps the address a v1 password was stretched with once the primary
//   moves away from it (onepw: the v1 salt is the address; the client must stretch with it).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('emails').addColumn('code_hash', 'varchar(64)').execute();
  await db.schema.alterTable('emails').addColumn('code_expires_at', 'bigint').execute();
  await db.schema.alterTable('emails').addColumn('code_tries', 'integer').execute();
  await db.schema.alterTable('emails').addColumn('code_failures', 'integer', (c) => c.notNull().defaultTo(sql`0`)).execute();
  await db.schema.alterTable('accounts').addColumn('password_email', 'varchar(255)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('password_email').execute();
  for (const c of ['code_failures', 'code_tries', 'code_expires_at', 'code_hash']) await db.schema.alterTable('emails').dropColumn(c).execute();
}
