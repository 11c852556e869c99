import type { Kysely } from 'kysely';

// Issue 12: two-step authentication (protocol.md §4.6, §4.7). One TOTP row per account at most:
// the shared secret sealed with AES-256-GCM under TOTP_ENCRYPTION_KEY (never in plain text), the
// last time step a code was accepted for (a code is accepted once per step), and whether setup
// finished. Backup codes: one row per code, stored as an HMAC (never the code), deleted when used.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('totp')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('sealed_secret', 'varchar(255)', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('pending_sealed_secret', 'varchar(255)')
    .addColumn('last_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('enabled_at', 'bigint')
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('recovery_codes_pk', ['uid', 'code_hash'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('totp').execute();
}
