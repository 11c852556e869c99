import type { Kysely } from 'kysely';

// Issue 11: devices (spec 1 §3, protocol.md §5.7). A device is a relying party's record of one
// installation (a browser's sync, an app) on one session: its name and type, where to push to it
// (a Web Push subscription: endpoint and the two keys its payloads are encrypted to) and the
// commands it accepts. One device per session, so `session_id_hash` is unique; the device goes
// with its session. Sessions with a device no longer expire when idle (protocol.md §2.1), which
// the session row says in `has_device` so that the per-request session check reads one row.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('devices')
    .addColumn('uid', 'varchar(32)', (c) => c.notNull())
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('session_id_hash', 'varchar(64)')
    .addColumn('name', 'varchar(255)')
    .addColumn('type', 'varchar(16)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('push_callback', 'varchar(255)')
    .addColumn('push_public_key', 'varchar(88)')
    .addColumn('push_auth_key', 'varchar(24)')
    .addColumn('push_endpoint_expired', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('available_commands', 'text')
    .addPrimaryKeyConstraint('devices_pk', ['uid', 'id'])
    .execute();
  await db.schema.createIndex('devices_session').on('devices').column('session_id_hash').unique().execute();
  await db.schema.alterTable('session_tokens').addColumn('has_device', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('session_tokens').dropColumn('has_device').execute();
  await db.schema.dropTable('devices').execute();
}
