import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { AppError } from '../errors.js';
import { getDialect } from './dialect.js';
import type { Row, Store, StoreOptions, StoreStats } from './store.js';
import type { Database } from './tables.js';

const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;

/**
 * Types as both stores return them: int8 (ids, counts) as numbers and
 * timestamptz as ISO 8601 strings, the way SQLite stores them.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === TIMESTAMPTZ_OID) {
      const parse = pg.types.getTypeParser(oid, 'text') as (value: string) => Date;
      return (value: string) => parse(value).toISOString();
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** Error codes and conditions that mean "the database is not there right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** Maps driver failures to the errors a caller should see; others pass through. */
export function classifyPostgresError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (code === '57014') return new AppError('TIMEOUT', 'The query took too long and was cancelled.');
  // what is left after the retries of a serializable write: nothing was written, and a retry may pass
  if (code === '40001' || code === '40P01') {
    return new AppError('SERVICE_UNAVAILABLE', 'Too many concurrent writes to the same objects; nothing was changed. Retry shortly.');
  }
  if (
    (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      message,
    )
  ) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly.');
  }
  return error;
}

/**
 * How often a write transaction is tried when PostgreSQL cannot serialize it
 * with concurrent ones. Each round has a winner, so this many writers of one
 * row at once all get through.
 */
const SERIALIZATION_ATTEMPTS = 20;
/** serialization_failure and deadlock_detected: the transaction did nothing and may simply run again. */
const RETRYABLE_CODES = new Set(['40001', '40P01']);

/**
 * Runs a SERIALIZABLE transaction, again when PostgreSQL aborts it for a
 * concurrent one. Serializable is what SQLite gives by having one writer:
 * a write's checks and its audit entry's "before" see what it overwrites,
 * with no lost update between read and write. Each retry runs the whole
 * transaction again, so it sees what the winner committed.
 */
async function serializable<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= SERIALIZATION_ATTEMPTS || typeof code !== 'string' || !RETRYABLE_CODES.has(code)) throw error;
      // growing jitter, so the losers of one round do not collide again in the next
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }
}

/** Opens a PostgreSQL connection pool. Connections are made lazily, so this succeeds while the server is down. */
export function openPostgresStore(url: string, options: StoreOptions): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    types,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
  // an idle client losing its connection must not crash the process
  pool.on('error', () => undefined);

  const stats: StoreStats = { statements: 0 };
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: () => {
      stats.statements += 1;
    },
  });

  return {
    dialect: getDialect('postgres'),
    db,
    stats,
    transaction: (fn) => serializable(() => db.transaction().setIsolationLevel('serializable').execute((trx) => fn({ db: trx }))),
    async selectRow(text, params) {
      stats.statements += 1;
      try {
        const result = await pool.query<Row>(text, params as unknown[]);
        return result.rows[0];
      } catch (error) {
        throw classifyPostgresError(error);
      }
    },
    classifyError: classifyPostgresError,
    async ping() {
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw classifyPostgresError(error);
      }
    },
    poolState: () => ({
      inUse: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
      size: pool.options.max,
    }),
    async close() {
      await db.destroy();
    },
  };
}
