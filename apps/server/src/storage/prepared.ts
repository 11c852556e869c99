import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * A query built and compiled once per executor, then run with new parameter values: for the few
 * queries on the hottest paths (the session lookup behind every authenticated request), where
 * building Kysely's immutable query tree on every call shows up in profiles. `build` must place
 * its parameters in the order the caller passes them.
 */
export function preparedQuery<R, P extends unknown[]>(build: (db: Kysely<Database>) => Compilable<R>) {
  const compiled = new WeakMap<object, CompiledQuery<R>>();
  return async (db: Kysely<Database>, ...params: P): Promise<R[]> => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db).compile();
      compiled.set(db, query);
    }
    const { rows } = await db.executeQuery<R>({ ...query, parameters: params });
    return rows;
  };
}
