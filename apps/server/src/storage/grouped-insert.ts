import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/** At most this many rows in one statement (8 columns × 256 rows stays far below every dialect's parameter limit). */
const MAX_ROWS = 256;

interface Pending<Row> {
  row: Row;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for one table's single-row INSERTs made outside a transaction: the rows added in
 * the same turn of the event loop are written by one multi-row INSERT (one statement, so one
 * commit, all or nothing) just after it, and each caller's promise settles once that statement
 * has committed — a row is stored, and visible to every instance, before its caller goes on, as
 * with a plain INSERT. On SQLite each commit writes the table's and indexes' pages to the WAL, so
 * a flood of requests shares those writes instead of paying for them one by one. When the
 * statement fails, each row is tried alone, so every caller gets its own row's outcome.
 */
export function groupedInsert<T extends keyof Database & string, Row extends Record<string, unknown>>(table: T, columns: readonly (keyof Row & string)[]) {
  const queues = new WeakMap<Kysely<Database>, Pending<Row>[]>();
  const tuple = (row: Row): RawBuilder<unknown> => sql`(${sql.join(columns.map((c) => row[c]))})`;
  const insert = (db: Kysely<Database>, rows: Row[]) =>
    sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${sql.join(rows.map(tuple))}`.execute(db);

  async function flush(db: Kysely<Database>, batch: Pending<Row>[]): Promise<void> {
    try {
      await insert(db, batch.map((p) => p.row));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const p of batch) await insert(db, [p.row]).then(p.resolve, p.reject);
    }
  }

  return (db: Kysely<Database>, row: Row): Promise<void> => new Promise<void>((resolve, reject) => {
    // A column added to the row but not to `columns` would be dropped silently: refuse it instead.
    const keys = Object.keys(row);
    if (keys.length !== columns.length || keys.some((k) => !columns.includes(k))) {
      reject(new Error(`groupedInsert(${table}): the row's columns (${keys.join(', ')}) are not the declared ones (${columns.join(', ')})`));
      return;
    }
    let queue = queues.get(db);
    if (!queue) {
      queue = [];
      queues.set(db, queue);
      setImmediate(() => {
        const rows = queue!;
        queues.delete(db);
        for (let i = 0; i < rows.length; i += MAX_ROWS) void flush(db, rows.slice(i, i + MAX_ROWS));
      });
    }
    queue.push({ row, resolve, reject });
  });
}
