import { afterAll, beforeAll, expect } from 'vitest';
import { Migrator, type Kysely } from 'kysely';
import { migrationsOf } from '../../src/app.js';

/** Every migration of the server's composition (the platform's and each domain's), in order. */
const MIGRATIONS = migrationsOf();
import { openStorage, type DialectName, type Storage } from '../../src/storage/db.js';
import { databaseUrlFor, freshDatabase } from '../harness.js';

// Testing one migration against rows of the schema before it: a fresh database per dialect (opened
// in beforeAll, dropped in afterAll), migrated to the step just before `target`, where a test
// writes old-shaped rows and then runs `target`.

/** The dialects with a database configured for this run (SQLite always). */
export const MIGRATION_DIALECTS = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

export function migrationStep(dialect: DialectName, target: string) {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await storage?.destroy();
    await drop?.();
  });
  const names = Object.keys(MIGRATIONS);
  const before = names[names.indexOf(target) - 1]!;
  const migrateTo = async (name: string) => {
    const migrator = new Migrator({
      db: storage.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock',
    });
    expect((await migrator.migrateTo(name)).error).toBeUndefined();
  };
  return {
    get storage() { return storage; },
    /** The database untyped: the rows written are of an older schema than storage/schema.ts. */
    get db() { return storage.db as unknown as Kysely<any>; }, // eslint-disable-line @typescript-eslint/no-explicit-any
    /** Migrates to the step just before the target. */
    toBefore: () => migrateTo(before),
    /** Runs the target migration (and any before it not yet run). */
    toTarget: () => migrateTo(target),
  };
}
