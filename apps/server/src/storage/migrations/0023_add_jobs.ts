import type { Kysely } from 'kysely';

// Issue 23: one job queue (jobs/) for every side effect that leaves the server — a transactional
// outbox with retries, backoff and a dead-letter state. Webhook deliveries become its jobs (kind
// `webhook.<target>`, payload `{ event, body }`, the same id, so receivers de-duplicating by the
// delivery header see the same value); the rows webhook_deliveries holds move over as they are.

interface OldDelivery { id: string; target: string; event: string; payload: string; attempts: number; next_attempt_at: number | string; last_error: string | null; created_at: number | string }
interface Job { id: string; kind: string; dedupe_key: string | null; payload: string; state: string; attempts: number; run_at: number | string; last_error: string | null; created_at: number | string; updated_at: number | string }

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('dedupe_key', 'varchar(191)')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'varchar(255)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // NULL keys never collide (on all three dialects): only keyed jobs are de-duplicated.
  await db.schema.createIndex('jobs_dedupe').on('jobs').columns(['kind', 'dedupe_key']).unique().execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();
  const old = await db.selectFrom('webhook_deliveries').selectAll().execute() as OldDelivery[];
  for (const d of old) {
    await db.insertInto('jobs').values({
      id: d.id, kind: `webhook.${d.target}`, dedupe_key: null, payload: JSON.stringify({ event: d.event, body: JSON.parse(d.payload) as unknown }),
      state: 'pending', attempts: d.attempts, run_at: d.next_attempt_at, last_error: d.last_error, created_at: d.created_at, updated_at: d.created_at,
    }).execute();
  }
  await db.schema.dropTable('webhook_deliveries').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('target', 'varchar(32)', (c) => c.notNull())
    .addColumn('event', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'varchar(255)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').column('next_attempt_at').execute();
  const jobs = await db.selectFrom('jobs').selectAll().where('kind', 'like', 'webhook.%').where('state', '=', 'pending').execute() as Job[];
  for (const j of jobs) {
    const { event, body } = JSON.parse(j.payload) as { event: string; body: unknown };
    await db.insertInto('webhook_deliveries').values({
      id: j.id, target: j.kind.slice('webhook.'.length), event, payload: JSON.stringify(body), attempts: j.attempts,
      next_attempt_at: j.run_at, last_error: j.last_error, created_at: j.created_at,
    }).execute();
  }
  await db.schema.dropTable('jobs').execute();
}
