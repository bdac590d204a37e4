import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite connection the store runs on, from one of two drivers:
 * better-sqlite3 on Node.js 20 and 22, Node.js's own `node:sqlite` from
 * Node.js 24 on. better-sqlite3 12, the last release that runs on Node.js 20,
 * aborts the process on Node.js 24.19+ when a statement is garbage-collected
 * (its node::ObjectWrap cleanup hook), and 13, which fixes that, refuses
 * Node.js 20. `node:sqlite` has what the store needs from 24.0 on (the busy
 * timeout, `columns()`, user functions). The store sees one interface; each
 * driver's errors carry better-sqlite3's `code` names (`SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_UNIQUE`, ...), which the dialect and the store read.
 */
export interface SqliteConnection {
  /** Which driver runs it: `netgraph status`-style diagnostics and tests read it. */
  readonly driver: SqliteDriverName;
  /** Runs SQL that returns nothing (PRAGMA, BEGIN, DDL). */
  exec(text: string): void;
  /** A deterministic SQL function of one argument. */
  defineFunction(name: string, fn: (value: unknown) => unknown): void;
  prepare(text: string): SqliteDriverStatement;
  close(): void;
}

/** A prepared statement; parameters are positional and already converted to values SQLite binds. */
export interface SqliteDriverStatement {
  /** True when the statement returns rows. */
  readonly reader: boolean;
  get(params: readonly unknown[]): unknown;
  all(params: readonly unknown[]): unknown[];
  run(params: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(params: readonly unknown[]): IterableIterator<unknown>;
}

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

/** The first Node.js major whose `node:sqlite` the store runs on, and on which better-sqlite3 12 cannot run. */
const NODE_SQLITE_FROM_MAJOR = 24;

/** The driver this Node.js runs: better-sqlite3 before Node.js 24, `node:sqlite` from 24 on. */
export function sqliteDriverFor(nodeVersion: string = process.versions.node): SqliteDriverName {
  return Number(nodeVersion.split('.')[0]) >= NODE_SQLITE_FROM_MAJOR ? 'node:sqlite' : 'better-sqlite3';
}

const load = createRequire(import.meta.url);

/** Opens (creating) a database file, waiting up to `busyTimeoutMs` for another process's lock. */
export function openSqliteConnection(file: string, busyTimeoutMs: number, driver: SqliteDriverName = sqliteDriverFor()): SqliteConnection {
  return driver === 'node:sqlite' ? openNodeSqlite(file, busyTimeoutMs) : openBetterSqlite(file, busyTimeoutMs);
}

function openBetterSqlite(file: string, busyTimeoutMs: number): SqliteConnection {
  // loaded only here: on Node.js 24 the module is never loaded at all
  const Database = load('better-sqlite3') as typeof BetterSqlite3;
  const connection = new Database(file, { timeout: busyTimeoutMs });
  return {
    driver: 'better-sqlite3',
    exec: (text) => void connection.exec(text),
    defineFunction: (name, fn) => void connection.function(name, { deterministic: true }, fn),
    prepare(text) {
      const statement = connection.prepare(text);
      return {
        reader: statement.reader,
        get: (params) => statement.get(params),
        all: (params) => statement.all(params),
        run: (params) => statement.run(params),
        iterate: (params) => statement.iterate(params),
      };
    },
    close: () => void connection.close(),
  };
}

/** What the store uses of `node:sqlite` (Node.js 24; the project's @types/node is Node.js 20's, which has none). */
interface NodeSqliteModule {
  DatabaseSync: new (file: string, options: { timeout: number }) => {
    exec(text: string): void;
    function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): void;
    prepare(text: string): {
      columns(): unknown[];
      get(...params: unknown[]): unknown;
      all(...params: unknown[]): unknown[];
      run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
      iterate(...params: unknown[]): IterableIterator<unknown>;
    };
    close(): void;
  };
}

function openNodeSqlite(file: string, busyTimeoutMs: number): SqliteConnection {
  const { DatabaseSync } = load('node:sqlite') as NodeSqliteModule;
  const connection = new DatabaseSync(file, { timeout: busyTimeoutMs });
  return {
    driver: 'node:sqlite',
    exec: (text) => withCodes(() => connection.exec(text)),
    defineFunction: (name, fn) => connection.function(name, { deterministic: true }, fn),
    prepare(text) {
      const statement = withCodes(() => connection.prepare(text));
      return {
        reader: statement.columns().length > 0,
        get: (params) => withCodes(() => statement.get(...params)),
        all: (params) => withCodes(() => statement.all(...params)),
        run: (params) => withCodes(() => statement.run(...params)),
        iterate: (params) => withCodes(() => statement.iterate(...params)),
      };
    },
    close: () => connection.close(),
  };
}

/**
 * better-sqlite3's names of the extended result codes netgraph reads;
 * `node:sqlite` reports the number (`errcode`) under `code: 'ERR_SQLITE_ERROR'`.
 */
const RESULT_CODE_NAMES: ReadonlyMap<number, string> = new Map([
  [5, 'SQLITE_BUSY'],
  [261, 'SQLITE_BUSY_RECOVERY'],
  [517, 'SQLITE_BUSY_SNAPSHOT'],
  [773, 'SQLITE_BUSY_TIMEOUT'],
  [6, 'SQLITE_LOCKED'],
  [275, 'SQLITE_CONSTRAINT_CHECK'],
  [787, 'SQLITE_CONSTRAINT_FOREIGNKEY'],
  [1299, 'SQLITE_CONSTRAINT_NOTNULL'],
  [1555, 'SQLITE_CONSTRAINT_PRIMARYKEY'],
  [2067, 'SQLITE_CONSTRAINT_UNIQUE'],
]);

/** Runs `fn`; a `node:sqlite` error is rethrown with better-sqlite3's `code` for its result code. */
function withCodes<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const errcode = (error as { errcode?: unknown } | null)?.errcode;
    if (typeof errcode === 'number') {
      const name = RESULT_CODE_NAMES.get(errcode) ?? RESULT_CODE_NAMES.get(errcode & 0xff) ?? `SQLITE_ERROR_${errcode}`;
      Object.defineProperty(error, 'code', { value: name, configurable: true, enumerable: true, writable: true });
    }
    throw error;
  }
}
