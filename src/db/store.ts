import type { Kysely } from 'kysely';
import { AppError } from '../kernel/errors.js';
import type { SqlDialect } from './dialect.js';
import type { Database } from './tables.js';

/** One row of a raw read: column name to value. */
export type Row = Record<string, unknown>;

/**
 * What a repository runs its SQL on: the store's query builder, or one open
 * transaction of it. Repositories take this, so the same repository works
 * inside and outside a transaction.
 */
export interface SqlContext {
  readonly db: Kysely<Database>;
}

/**
 * An open database: the query builder for repositories, a fast raw path for
 * the compiled read statements, and the dialect's pieces.
 */
export interface Store {
  readonly dialect: SqlDialect;
  readonly db: Kysely<Database>;
  /**
   * Runs one raw SELECT built by a repository and returns its first row.
   * Connection failures become SERVICE_UNAVAILABLE, a statement timeout TIMEOUT.
   * With a deadline (a performance.now() time), a statement still running then
   * is cancelled in the database and the call throws TIMEOUT; SQLite cannot
   * interrupt a statement, so there it throws TIMEOUT after the statement
   * when the deadline has passed.
   */
  selectRow(text: string, params: readonly unknown[], options?: SelectOptions): Promise<Row | undefined>;
  /**
   * Runs `fn` in one serializable transaction (BEGIN IMMEDIATE on SQLite,
   * SERIALIZABLE on PostgreSQL, which runs `fn` again when a concurrent
   * transaction forces it to abort): committed when it resolves, rolled back
   * when it throws, whose error is rethrown as is. `fn` must have no effect
   * outside the transaction.
   */
  transaction<T>(fn: (tx: SqlContext) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in one transaction that sees each statement's own snapshot
   * (READ COMMITTED on PostgreSQL; BEGIN IMMEDIATE on SQLite, which has one
   * writer, as `transaction`): for writes that lock what they read first
   * (SELECT ... FOR UPDATE, in one stable order) and otherwise only write
   * with conditions of their own, so concurrent ones wait for each other
   * instead of aborting; also for queue work that claims rows with
   * `FOR UPDATE SKIP LOCKED` (the webhook outbox), the level that clause is
   * made for. Run again on a deadlock, the one abort PostgreSQL
   * still makes there; committed when it resolves, rolled back when it throws.
   */
  lockingTransaction<T>(fn: (tx: SqlContext) => Promise<T>): Promise<T>;
  /**
   * Gathers the planner's statistics for `tables` (every table of the store
   * when omitted): after a bulk load or a migration, so that plans do not
   * depend on someone running ANALYZE (autovacuum may be off, as during a
   * restore). PostgreSQL: ANALYZE of those tables, outside any transaction.
   * SQLite: ANALYZE within an analysis limit (approximate, fast).
   */
  analyze(tables?: readonly string[]): Promise<void>;
  /**
   * Gathers the statistics again of the tables that grew or shrank much
   * since they were last gathered, so that plans follow a table that grew
   * from a few rows after a migration to millions. SQLite: PRAGMA optimize
   * over every table, within the analysis limit (a read of each table's size
   * when nothing changed much). PostgreSQL: nothing; autovacuum's ANALYZE
   * does it there (and imports and migrations analyze what they load).
   * Run hourly by every server process (ingest/report.tasks.ts).
   */
  refreshStatistics(): Promise<void>;
  /** How many SQL statements this store has run, for logs, metrics and the N+1 test. */
  readonly stats: StoreStats;
  /** Maps a driver failure to the AppError a caller should see (unavailable, timeout); returns others unchanged. */
  classifyError(error: unknown): unknown;
  /** The read replica's state, when the store has one (READ_DATABASE_URL); for logs and metrics. */
  readonly replica?: ReadReplicaStatus;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** The connection pool's state; SQLite has one connection, never waiting. */
  poolState(): { readonly inUse: number; readonly waiting: number; readonly size: number };
  close(): Promise<void>;
}

/** Options of one raw read. */
export interface SelectOptions {
  /** When the statement must be done by, as a performance.now() time. */
  readonly deadline?: number;
  /**
   * A statement that runs this read for several callers at once: for each
   * parameter of the read, an array of the callers' values, and one row per
   * caller with its 1-based position in the column `i`. A store that has
   * several reads of the same text waiting for a connection may run them as
   * one such statement (PostgreSQL); each caller still gets only its own row.
   * A statement that fails fails every read in it, so the batch form must not
   * fail for one caller's values where the read would not: the compiled reads
   * take only arguments checked beforehand.
   */
  readonly batchText?: string;
  /**
   * The read may run on the store's read replica, when it has one that is up
   * and close enough behind the primary; otherwise it runs on the primary.
   * Only for reads that need not see the caller's own latest writes.
   */
  readonly replica?: ReplicaRead;
}

/** What a read that may run on the replica needs to stay right there. */
export interface ReplicaRead {
  /**
   * A one-row read of what must never be stale (an API key's revocation),
   * run on the primary at the same time as the read runs on the replica;
   * its columns replace the read's columns of the same name. Not run when
   * the read itself runs on the primary: the read's own columns are fresh.
   */
  readonly fresh?: { readonly text: string; readonly params: readonly unknown[]; readonly batchText?: string };
}

/** Where the reads that allow it go, and why. */
export interface ReplicaState {
  readonly target: 'replica' | 'primary';
  /** Why: it is in use, no check has passed yet, it did not answer, or it is further behind than allowed. */
  readonly reason: 'in-use' | 'starting' | 'unavailable' | 'lagging';
  /** How far behind the primary it was at the last check that reached both, in ms; null before the first. */
  readonly lagMs: number | null;
}

/** The read replica as the rest of the process sees it. */
export interface ReadReplicaStatus {
  state(): ReplicaState;
  /** Calls `listener` on every change of target or reason (one call per transition), with the error behind it if any. */
  onChange(listener: (state: ReplicaState, error?: unknown) => void): void;
}

/** The error every store throws when a statement outlives its deadline. */
export function statementTimeout(): AppError {
  return new AppError('TIMEOUT', 'The query took longer than the request timeout and was cancelled.');
}

/** Counters kept by a store. */
export interface StoreStats {
  statements: number;
}
