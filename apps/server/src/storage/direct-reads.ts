import type SQLite from 'better-sqlite3';

/**
 * SQLite point reads that skip Kysely's executor (issue 14's introspection and refresh benches).
 *
 * On SQLite every query goes through Kysely's driver: a connection mutex, the connection provider
 * and the plugins, several promise hops around a statement that better-sqlite3 runs synchronously
 * in about 2 µs. For the few prepared point lookups on the hottest paths (storage/prepared.ts) that
 * plumbing cost more than the read. better-sqlite3 is synchronous, so a read run directly on the
 * handle is atomic with respect to everything else in the process; it sees exactly what a read
 * through Kysely would, provided no transaction is open on the connection. While one is (between
 * its BEGIN and its COMMIT or ROLLBACK, which span awaits), a direct read would see its uncommitted
 * rows, so the read goes through Kysely and waits for the transaction as before.
 *
 * Only SELECTs run here: writes must pass the write epoch (write-epoch.ts).
 */
const handles = new WeakMap<object, SQLite.Database>();

/** Marks `db` (the root Kysely of an SQLite storage) as readable directly through `sqlite`. */
export function registerDirectReads(db: object, sqlite: SQLite.Database): void {
  handles.set(db, sqlite);
}

/** The handle to read `db` through now, or undefined: not SQLite, a transaction object, or a transaction open. */
export function directReadHandle(db: object): SQLite.Database | undefined {
  const sqlite = handles.get(db);
  return sqlite && !sqlite.inTransaction ? sqlite : undefined;
}
