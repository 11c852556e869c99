import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';
import { directReadHandle } from './direct-reads.js';
import type { Database } from './schema.js';

/**
 * A query built and compiled once per executor, then run with new parameter values: for the few
 * queries on the hottest paths (the session lookup behind every authenticated request, the OAuth
 * client and token lookups), where building Kysely's immutable query tree on every call shows up
 * in profiles. `build` must place its parameters in the order the caller passes them.
 *
 * On SQLite a SELECT runs straight on the database handle when no transaction is open
 * (direct-reads.ts), with its statement prepared once.
 */
export function preparedQuery<R, P extends unknown[]>(build: (db: Kysely<Database>) => Compilable<R>) {
  const compiled = new WeakMap<object, CompiledQuery<R>>();
  const statements = new WeakMap<SQLite.Database, SQLite.Statement>();
  return (db: Kysely<Database>, ...params: P): Promise<R[]> => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db).compile();
      compiled.set(db, query);
    }
    const sqlite = query.query.kind === 'SelectQueryNode' ? directReadHandle(db) : undefined;
    if (sqlite) {
      try {
        let stmt = statements.get(sqlite);
        if (!stmt) {
          stmt = sqlite.prepare(query.sql);
          statements.set(sqlite, stmt);
        }
        return Promise.resolve(stmt.all(params) as R[]);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return db.executeQuery<R>({ ...query, parameters: params }).then((r) => r.rows);
  };
}
