import type {
  DatabaseConnection, Dialect, Driver, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult,
  RootOperationNode, TransactionSettings, UnknownRow, QueryId,
} from 'kysely';
import { transactionEnded } from './after-commit.js';

/**
 * A counter that moves whenever this process writes to the database (any statement that is not a
 * SELECT), before and after the write. In-process caches of rows (the session cache) record the
 * counter when they fill and trust an entry only while it has not moved, so a write here is never
 * hidden by a stale entry. It also moves when a transaction commits or rolls back (see
 * `withWriteEpoch`): a read on another connection between a write and its COMMIT still sees the
 * old row, and must not be trusted once the write is committed.
 */
export class WriteEpoch implements KyselyPlugin {
  value = 0;
  private readonly writes = new WeakSet<QueryId>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind !== 'SelectQueryNode') {
      this.value++;
      this.writes.add(args.queryId);
    }
    return args.node;
  }

  /** Moves the counter (a transaction ended). */
  bump(): void {
    this.value++;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.writes.has(args.queryId)) {
      this.writes.delete(args.queryId);
      this.value++;
    }
    return args.result;
  }
}

/**
 * The dialect with a driver that moves `epoch` after every COMMIT and ROLLBACK. Kysely sends those
 * to the driver directly, past every plugin, so the plugin alone cannot see them (issue 9, hole 6).
 */
export function withWriteEpoch(dialect: Dialect, epoch: WriteEpoch): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => new EpochDriver(dialect.createDriver(), epoch),
  };
}

class EpochDriver implements Driver {
  constructor(private readonly driver: Driver, private readonly epoch: WriteEpoch) {
    // Optional savepoint support, only where the wrapped driver has it.
    if (driver.savepoint) this.savepoint = driver.savepoint.bind(driver);
    if (driver.rollbackToSavepoint) this.rollbackToSavepoint = driver.rollbackToSavepoint.bind(driver);
    if (driver.releaseSavepoint) this.releaseSavepoint = driver.releaseSavepoint.bind(driver);
  }

  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  init(): Promise<void> {
    return this.driver.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.driver.acquireConnection();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.driver.beginTransaction(connection, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    let committed = false;
    try {
      await this.driver.commitTransaction(connection);
      committed = true;
    } finally {
      this.epoch.bump();
      // After the bump: an effect that reads through the session cache sees the committed rows.
      transactionEnded(connection, committed);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.driver.rollbackTransaction(connection);
    } finally {
      this.epoch.bump();
      transactionEnded(connection, false);
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }
}
