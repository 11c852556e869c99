import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow, QueryId } from 'kysely';

/**
 * A counter that moves whenever this process writes to the database (any statement that is not a
 * SELECT), before and after the write. In-process caches of rows (the session cache) record the
 * counter when they fill and trust an entry only while it has not moved, so a write here is never
 * hidden by a stale entry.
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

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.writes.has(args.queryId)) {
      this.writes.delete(args.queryId);
      this.value++;
    }
    return args.result;
  }
}
