import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, MysqlDialect, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import type { MigrationContext, TesseraMigration } from './migrations/index.js';
import type { Database } from './schema.js';
import { registerDirectReads } from './direct-reads.js';
import { WriteEpoch, withWriteEpoch } from './write-epoch.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export interface Storage {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Moves on every write this process makes (see write-epoch.ts). */
  writeEpoch: WriteEpoch;
  destroy(): Promise<void>;
}

export function dialectOf(url: string): DialectName {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (/^(mysql|mariadb):\/\//.test(url)) return 'mysql';
  throw new Error(`DATABASE_URL must start with sqlite:, postgres:// or mysql:// (got "${url.split(':')[0]}:")`);
}

// node-pg returns BIGINT (oid 20) as a string; every bigint here is a millisecond time, well inside
// 2^53, so parse it as a number for this pool only (no global type-parser mutation).
const PG_INT8 = 20;
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === PG_INT8) return (v: string) => Number(v);
    return (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format);
  },
};

function makeDialect(url: string, poolSize: number, onError: (err: Error) => void): { dialect: Dialect; sqlite?: SQLite.Database } {
  switch (dialectOf(url)) {
    case 'sqlite': {
      const file = url.slice('sqlite:'.length);
      if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
      const sqlite = new SQLite(file);
      // WAL lets readers proceed while a write commits; NORMAL sync is durable across app crashes.
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
      sqlite.pragma('busy_timeout = 5000');
      return { dialect: new SqliteDialect({ database: cachingStatements(sqlite) }), sqlite };
    }
    case 'postgres': {
      // A server that never answers (a dropped packet, a wrong host) fails in 10 s instead of hanging.
      const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000, types: pgTypes as never });
      // An idle connection that the server closes (restart, failover) must not crash the process:
      // the pool drops it and opens another on the next query.
      pool.on('error', onError);
      return { dialect: new PostgresDialect({ pool }) };
    }
    case 'mysql':
      return {
        dialect: new MysqlDialect({
          pool: createMysqlPool({ uri: url.replace(/^mariadb:/, 'mysql:'), connectionLimit: poolSize, timezone: 'Z' }),
        }),
      };
  }
}

/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running a
 * point lookup. Statements are reusable, so keep the most recent ones by SQL text.
 */
function cachingStatements(sqlite: SQLite.Database, max = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql);
    } else {
      stmt = sqlite.prepare(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, stmt);
    return stmt;
  };
  return { prepare, close: () => sqlite.close() } as unknown as SQLite.Database;
}

/** Opens the database named by a DATABASE_URL (`sqlite:<path>`, `postgres://…`, `mysql://…`). */
export function openStorage(url: string, options: { poolSize?: number; onError?: (err: Error) => void } = {}): Storage {
  const writeEpoch = new WriteEpoch();
  const made = makeDialect(url, options.poolSize ?? 10, options.onError ?? (() => undefined));
  const db = new Kysely<Database>({ dialect: withWriteEpoch(made.dialect, writeEpoch), plugins: [writeEpoch] });
  if (made.sqlite) registerDirectReads(db, made.sqlite);
  return { db, dialect: dialectOf(url), writeEpoch, destroy: () => db.destroy() };
}

/**
 * Brings the schema to the newest migration; throws (and the server refuses to start) on failure.
 * `context.authSecret` is the server secret: a migration that rekeys stored tokens needs it
 * whenever there are rows to rekey (an empty database migrates without it).
 */
/**
 * Runs every migration of `all` not yet run: the composed list (app.ts's `migrationsOf`, the
 * platform's and each domain's). Storage knows no domain, so the caller names the list.
 */
export async function migrateToLatest(db: Kysely<Database>, context: MigrationContext, all: Record<string, TesseraMigration>): Promise<string[]> {
  const migrations = Object.fromEntries(Object.entries(all).map(([name, m]) => [name, {
    up: (trx: Kysely<unknown>) => m.up(trx, context),
    ...(m.down ? { down: m.down.bind(m) } : {}),
  }]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const failed = results?.find((r) => r.status === 'Error');
  if (failed) throw new Error(`migration ${failed.migrationName} failed`);
  return (results ?? []).map((r) => r.migrationName);
}

/** True when a write failed on a primary-key or unique constraint, whatever the dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number } | null;
  if (!e) return false;
  return (
    e.code === '23505' || // PostgreSQL unique_violation
    e.code === 'ER_DUP_ENTRY' || e.errno === 1062 || // MySQL / MariaDB
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
