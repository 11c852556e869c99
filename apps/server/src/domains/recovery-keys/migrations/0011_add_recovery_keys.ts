import type { Kysely } from 'kysely';

// Issue 12: account recovery keys (protocol.md §4.8). At most one per account. The server keeps
// what the person's key encrypts (recovery_data, a JWE of kB it cannot open) and the SHA-256 of the
// key's fingerprint (recoveryKeyId): the fingerprint is the credential a reset presents, so it is
// stored only hashed, like a token id. A key made with `enabled: false` waits for
// /recoveryKey/verify before it counts.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('recovery_keys')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    .addColumn('recovery_key_id_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('recovery_data', 'varchar(1024)', (c) => c.notNull())
    .addColumn('hint', 'varchar(255)')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_keys').execute();
}
