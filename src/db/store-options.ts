// Store options and their defaults: config.ts reads them from the environment,
// the drivers apply them; a leaf, so neither side imports the other.

/** The default of StoreOptions.readBatchBudgetMs, and of READ_BATCH_BUDGET_MS. */
export const DEFAULT_READ_BATCH_BUDGET_MS = 5;

/** The default of ReadReplicaOptions.maxLagMs, and of READ_REPLICA_MAX_LAG_MS. */
export const DEFAULT_READ_REPLICA_MAX_LAG_MS = 5_000;

/** A streaming replica of a PostgreSQL store that takes the reads that may be a little stale (postgres-replica.ts). */
export interface ReadReplicaOptions {
  /** Its connection URL (READ_DATABASE_URL). */
  readonly url: string;
  /** How far behind the primary it may be and still be read from (READ_REPLICA_MAX_LAG_MS). */
  readonly maxLagMs: number;
}

/** Store options beyond the target. */
export interface StoreOptions {
  readonly poolSize?: number;
  /**
   * PostgreSQL: how long, by their recent average, the reads one statement
   * answers may take together (postgres-reads.ts); 0 runs every read on its
   * own. Default DEFAULT_READ_BATCH_BUDGET_MS.
   */
  readonly readBatchBudgetMs?: number;
  readonly statementTimeoutMs?: number;
  /** PostgreSQL: a streaming replica for the reads that allow it (SelectOptions.replica). */
  readonly readReplica?: ReadReplicaOptions;
}
