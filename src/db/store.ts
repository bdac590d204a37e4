import type { Kysely } from 'kysely';
import { AppError } from '../errors.js';
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
   * Runs `fn` in one transaction for queue work: rows claimed with
   * `FOR UPDATE SKIP LOCKED` (PostgreSQL, at READ COMMITTED, the level that
   * clause is made for: a serializable claim would abort on every concurrent
   * insert it overlaps). SQLite: as `transaction`, whose write lock already
   * serialises claims across the processes of one file. Not run again on
   * failure.
   */
  queueTransaction<T>(fn: (tx: SqlContext) => Promise<T>): Promise<T>;
  /** How many SQL statements this store has run, for logs, metrics and the N+1 test. */
  readonly stats: StoreStats;
  /** Maps a driver failure to the AppError a caller should see (unavailable, timeout); returns others unchanged. */
  classifyError(error: unknown): unknown;
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
}

/** The error every store throws when a statement outlives its deadline. */
export function statementTimeout(): AppError {
  return new AppError('TIMEOUT', 'The query took longer than the request timeout and was cancelled.');
}

/** Counters kept by a store. */
export interface StoreStats {
  statements: number;
}
