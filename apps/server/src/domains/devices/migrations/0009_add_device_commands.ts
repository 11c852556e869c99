import { MysqlAdapter, PostgresAdapter, type Kysely } from 'kysely';

// Issue 11: device commands (spec 1 §3 "Device command"). A device sends another device of the
// account a command it advertises (POST /account/devices/invoke_command); the target reads its
// commands in order (GET /account/device/commands). `idx` counts in insertion order and is the
// command's index; a command past `expires_at` is never delivered, and goes with its device.

export async function up(db: Kysely<unknown>): Promise<void> {
  const adapter = db.getExecutor().adapter;
  const postgres = adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('device_commands')
    .addColumn('idx', postgres ? 'bigserial' : adapter instanceof MysqlAdapter ? 'bigint' : 'integer', (c) =>
      postgres ? c.primaryKey().notNull() : c.primaryKey().autoIncrement().notNull())
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('device_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('command', 'varchar(100)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('sender', 'varchar(32)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_commands_target').on('device_commands').columns(['uid', 'device_id', 'idx']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_commands').execute();
}
