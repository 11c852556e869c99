import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What store functions take first: the database, or a transaction a service opened on it. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** A transaction: what lifecycle hooks get, so their writes commit or roll back with the caller's. */
export type Trx = Transaction<Database>;
