import type { Kysely } from 'kysely';

// Issue 12: the recovery phone (protocol.md §4.9). `recovery_phones` holds an account's confirmed
// number (one per account; a number may serve at most five accounts, checked by the service).
// `recovery_phone_codes` holds the SMS codes waiting to be typed back, one per account and purpose
// (`setup`: a number being added or changed, which the row carries until confirmed; `signin`;
// `reset`). Codes are kept only as HMACs. `failures` counts wrong guesses at the row's code and is
// carried over when a resend replaces it, so resending never buys more guesses.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('recovery_phones')
    .addColumn('uid', 'varchar(32)', (c) => c.primaryKey().notNull())
    // E.164: a plus and at most 15 digits.
    .addColumn('phone_number', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recovery_phones_number').on('recovery_phones').column('phone_number').execute();

  await db.schema
    .createTable('recovery_phone_codes')
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('phone_number', 'varchar(16)', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('recovery_phone_codes_pk', ['uid', 'purpose'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_phone_codes').execute();
  await db.schema.dropTable('recovery_phones').execute();
}
