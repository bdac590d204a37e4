// Store options and their defaults: config.ts reads them from the environment,
// the drivers apply them; a leaf, so neither side imports the other.

/** The default of StoreOptions.readBatchBudgetMs, and of READ_BATCH_BUDGET_MS. */
export const DEFAULT_READ_BATCH_BUDGET_MS = 5;

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
}
