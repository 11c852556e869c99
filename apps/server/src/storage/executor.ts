import { SqliteAdapter, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What store functions take first: the database, or a transaction a service opened on it. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** A transaction: what lifecycle hooks get, so their writes commit or roll back with the caller's. */
export type Trx = Transaction<Database>;

/**
 * Whether the database locks rows (`SELECT … FOR UPDATE`): PostgreSQL and MySQL do; SQLite has
 * one writer at a time and no such clause, so a plain read there already sees every committed write.
 */
export function locksRows(db: Executor): boolean {
  return !(db.getExecutor().adapter instanceof SqliteAdapter);
}
