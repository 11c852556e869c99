import type { Kysely } from 'kysely';

// Issue 12: the emailed codes of the MFA step-up (POST /mfa/otp/request, protocol.md §4.10). One
// row per session and protected action: the live code as an HMAC (null once used or voided), its
// expiry and tries, and the wrong codes the session sent for that action across every code, which
// a new code does not reset. The row goes with its session.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mfa_otp_codes')
    .addColumn('session_id_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)')
    .addColumn('expires_at', 'bigint')
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('mfa_otp_codes_pk', ['session_id_hash', 'action'])
    .execute();
  await db.schema.createIndex('mfa_otp_codes_uid').on('mfa_otp_codes').column('uid').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mfa_otp_codes').execute();
}
