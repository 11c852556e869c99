import type { DatabaseConnection } from 'kysely';
import type { Executor } from './executor.js';

/**
 * Effects that must wait for a transaction's commit: a Web Push cannot be taken back, and a device
 * told "the account changed" re-reads it, so it must not be sent for a change that rolls back nor
 * arrive before the change is visible.
 *
 * Effects are kept per database connection: a transaction runs on one, and the storage driver
 * (write-epoch.ts) calls `transactionEnded` for it after its COMMIT or ROLLBACK, on every dialect.
 */
const pending = new WeakMap<DatabaseConnection, (() => void)[]>();

/**
 * Runs `effect` once `db`'s transaction has committed, and never if it rolls back; at once when
 * `db` is not a transaction. Await it before the transaction's callback returns: registering
 * waits for the transaction's connection to be free of the query running on it.
 */
export async function afterCommit(db: Executor, effect: () => void): Promise<void> {
  if (!db.isTransaction) {
    effect();
    return;
  }
  await db.getExecutor().provideConnection(async (connection) => {
    const effects = pending.get(connection);
    if (effects) effects.push(effect);
    else pending.set(connection, [effect]);
  });
}

/**
 * The transaction on `connection` has ended: committed (its effects run, in order) or not (they
 * are dropped). An effect that throws is reported as a process warning and does not stop the
 * others, nor fail a commit that has already happened.
 */
export function transactionEnded(connection: DatabaseConnection, committed: boolean): void {
  const effects = pending.get(connection);
  if (!effects) return;
  pending.delete(connection);
  if (!committed) return;
  for (const effect of effects) {
    try {
      effect();
    } catch (err) {
      process.emitWarning(err instanceof Error ? err : new Error(String(err)), 'AfterCommitWarning');
    }
  }
}
