import fs from 'node:fs';
import path from 'node:path';
import { Kysely, SqliteAdapter, SqliteDialect, sql } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { AppError } from '../kernel/errors.js';
import { getDialect, ipOrderKey } from './dialect.js';
import { openSqliteConnection } from './sqlite-driver.js';
import type { SqliteConnection, SqliteDriverStatement } from './sqlite-driver.js';
import { statementTimeout } from './store.js';
import type { Row, Store, StoreStats } from './store.js';
import type { Database } from './tables.js';

const STATEMENT_CACHE_SIZE = 500;
/** Rows of each index ANALYZE looks at (SQLite's own suggestion is 100 to 1000): enough for the planner's averages. */
const SQLITE_ANALYSIS_LIMIT = 1000;

/** The functions of SQLite's compiled reads that PostgreSQL has built in; any connection that runs them needs these. */
export function addSqlFunctions(connection: Pick<SqliteConnection, 'defineFunction'>): void {
  // what PostgreSQL's inet gives the compiled reads (dialect.ipBetween)
  connection.defineFunction('ip_order_key', (value) => ipOrderKey(value));
  // what PostgreSQL's encode(…, 'base64') gives the change feed's cursors (dialect.base64url)
  connection.defineFunction('base64url', (value) => (value === null ? null : Buffer.from(String(value)).toString('base64url')));
}

/**
 * Drops the statistics that say an index holds no rows, then has the planner
 * read the statistics again. A partial index analyzed while empty is
 * recorded as holding none ("0 0 0"), and SQLite trusts that while the table
 * grows (it gathers no statistics by itself): after the migrations' ANALYZE
 * of a new database, the open client sessions' index looked empty, and
 * ingest's session update scanned every session of a batch's networks once
 * per listed client (15 ms of CPU a report). Without a row, the planner
 * assumes a table of rows.
 */
const EMPTY_INDEX_STATISTICS = "FROM sqlite_stat1 WHERE stat = '0' OR stat LIKE '0 %'";
const DROP_EMPTY_INDEX_STATISTICS = [`DELETE ${EMPTY_INDEX_STATISTICS}`, 'ANALYZE sqlite_schema'] as const;

/**
 * The same at open, for the statistics an earlier version's ANALYZE left:
 * a read, and a write only when there are some.
 */
function dropEmptyIndexStatistics(connection: SqliteConnection): void {
  if (connection.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get([]) === undefined) return;
  if (connection.prepare(`SELECT 1 ${EMPTY_INDEX_STATISTICS} LIMIT 1`).get([]) !== undefined) for (const statement of DROP_EMPTY_INDEX_STATISTICS) connection.exec(statement);
}

/**
 * Opens (creating if needed) a SQLite database file in WAL mode, so that a CLI
 * process can write while servers read.
 */
export function openSqliteStore(file: string): Store {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = openSqliteConnection(file, BUSY_TIMEOUT_MS);
  useWriteAheadLog(connection);
  connection.exec('PRAGMA synchronous = NORMAL');
  connection.exec('PRAGMA foreign_keys = ON');
  addSqlFunctions(connection);
  dropEmptyIndexStatistics(connection);

  const stats: StoreStats = { statements: 0 };
  const db = new Kysely<Database>({
    dialect: new TransactionalSqliteDialect({ database: withSqliteValues(connection) }),
    log: () => {
      stats.statements += 1;
    },
  });
  const statements = new Map<string, SqliteDriverStatement>();

  return {
    dialect: getDialect('sqlite'),
    db,
    stats,
    transaction: (fn) => db.transaction().execute((trx) => fn({ db: trx })),
    lockingTransaction: (fn) => db.transaction().execute((trx) => fn({ db: trx })),
    async selectRow(text, params, options = {}) {
      // a synchronous driver cannot be interrupted: refuse to start late, and refuse a late result
      if (options.deadline !== undefined && performance.now() >= options.deadline) throw statementTimeout();
      stats.statements += 1;
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = connection.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
        statements.set(text, statement);
      }
      const row = statement.get(params.map(toSqliteValue)) as Row | undefined;
      if (options.deadline !== undefined && performance.now() > options.deadline) throw statementTimeout();
      return row;
    },
    async analyze(tables) {
      // at most SQLITE_ANALYSIS_LIMIT rows of each index: approximate statistics, in milliseconds whatever the size
      await sql.raw(`PRAGMA analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`).execute(db);
      if (tables === undefined) await sql`ANALYZE`.execute(db);
      else for (const table of tables) await sql`ANALYZE ${sql.table(table)}`.execute(db);
      for (const statement of DROP_EMPTY_INDEX_STATISTICS) await sql.raw(statement).execute(db);
    },
    async refreshStatistics() {
      connection.exec(`PRAGMA analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`);
      // 0x10002: every table of the file, not only those this connection has read since it opened
      connection.exec('PRAGMA optimize = 0x10002');
      dropEmptyIndexStatistics(connection);
    },
    classifyError: (error) =>
      (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY'
        ? new AppError('SERVICE_UNAVAILABLE', 'The database is busy; retry shortly.')
        : error,
    async ping() {
      connection.prepare('SELECT 1').get([]);
    },
    poolState: () => ({ inUse: 0, waiting: 0, size: 1 }),
    async close() {
      await db.destroy();
    },
  };
}

/** How long a statement waits for another process's lock before it fails with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/**
 * Puts the file in WAL mode. Switching a file that is not yet in WAL mode
 * needs an exclusive lock, and SQLite answers SQLITE_BUSY at once, without
 * the busy timeout, while another process holds a lock on it: two servers
 * starting on one new file, the first already migrating, made the second
 * exit with "database is locked". So this tries again every 10 ms, up to
 * BUSY_TIMEOUT_MS, blocking (it runs once, when the store opens).
 */
function useWriteAheadLog(connection: SqliteConnection): void {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      connection.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw error;
      Atomics.wait(SLEEPER, 0, 0, 10);
    }
  }
}

/**
 * kysely's SQLite adapter says SQLite has no transactional DDL, so its
 * migrator runs migrations outside any transaction and without a lock: two
 * processes starting on one new file both create the tables and one fails.
 * SQLite does roll DDL back; with this adapter each migration batch runs in a
 * transaction that (see withSqliteValues) takes the write lock first, so a
 * second migrator waits, then finds the work done.
 */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TransactionalSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new TransactionalSqliteAdapter();
  }
}

/** SQLite's drivers bind neither booleans nor dates: store them as 1/0 and ISO text. */
function toSqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * The query builder's connection, with two changes: values are converted (see
 * toSqliteValue), and transactions BEGIN IMMEDIATE. A deferred transaction
 * that reads and then writes fails with SQLITE_BUSY_SNAPSHOT when another
 * process wrote in between (two servers migrating one new file, a CLI import
 * next to a server); IMMEDIATE takes the write lock first and waits for it
 * (busy_timeout), so concurrent writers queue instead of failing.
 */
function withSqliteValues(connection: SqliteConnection): SqliteDatabase {
  // prepared once per text: all() and run() finish before they return, so a statement is never in use twice;
  // iterate() keeps its statement busy until the caller is done, so it gets a fresh one
  const prepared = new Map<string, SqliteDriverStatement>();
  const statementOf = (text: string): SqliteDriverStatement => {
    let statement = prepared.get(text);
    if (statement === undefined) {
      statement = connection.prepare(text);
      if (prepared.size >= STATEMENT_CACHE_SIZE) prepared.delete(prepared.keys().next().value as string);
      prepared.set(text, statement);
    }
    return statement;
  };
  return {
    close: () => connection.close(),
    prepare(given): SqliteStatement {
      const text = /^begin$/i.test(given.trim()) ? 'begin immediate' : given;
      const statement = statementOf(text);
      return {
        reader: statement.reader,
        all: (params) => statement.all(params.map(toSqliteValue)),
        run: (params) => statement.run(params.map(toSqliteValue)),
        iterate: (params) => connection.prepare(text).iterate(params.map(toSqliteValue)),
      };
    },
  };
}
