import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { AppError } from '../kernel/errors.js';
import { getDialect } from './dialect.js';
import { CurrentSchemaPostgresDialect } from './postgres-introspector.js';
import { createReadRunner } from './postgres-reads.js';
import { createReplicaRouter } from './postgres-replica.js';
import { statementTimeout } from './store.js';
import type { Store, StoreStats } from './store.js';
import { DEFAULT_READ_BATCH_BUDGET_MS, DEFAULT_READ_REPLICA_MAX_LAG_MS } from './store-options.js';
import type { StoreOptions } from './store-options.js';
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
  '53300', // too_many_connections: max_connections, or a role's or database's CONNECTION LIMIT, is reached
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** pg-pool's error when a request waited `connectionTimeoutMillis` for one of the pool's connections, all of them in use. */
const POOL_QUEUE_TIMEOUT = 'timeout exceeded when trying to connect';

/** Maps driver failures to the errors a caller should see; others pass through. */
export function classifyPostgresError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  if (code === '57014') return statementTimeout();
  // what is left after the retries of a serializable write: nothing was written, and a retry may pass
  if (code === '40001' || code === '40P01') {
    return new AppError('SERVICE_UNAVAILABLE', 'Too many concurrent writes to the same objects; nothing was changed. Retry shortly.');
  }
  // pg-pool's words when a request waited 5 s in its queue because every connection of the pool was in use (a
  // connection that could not be made within 5 s is 'Connection terminated due to connection timeout' instead): the
  // database may well be up, and more connections or processes, or faster statements, are what would help
  if (message === POOL_QUEUE_TIMEOUT) {
    return new AppError('SERVICE_UNAVAILABLE', 'Every database connection of this server is busy; retry shortly.');
  }
  if ((typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || /Connection terminated|Client has encountered a connection error/.test(message)) {
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

/**
 * How many distinct read statements a process keeps prepared on each
 * connection. The compiled read path sends one text per document, so a few
 * dozen cover an integration's polling; texts beyond the bound run unprepared
 * so the server's memory per connection stays bounded.
 */
export const PREPARED_STATEMENTS_MAX = 200;

/**
 * Opens a PostgreSQL store: two connection pools of `poolSize` each, one for
 * the compiled reads (selectRow) and one for everything else (the query
 * builder: writes, key lookups, the dashboard's lists). Connections are made
 * lazily, so this succeeds while the server is down.
 *
 * Why two: the compiled reads are prepared statements that look rows up by
 * key, for which PostgreSQL's generic plan is always right, and their batch
 * forms take arrays, for which PostgreSQL would otherwise plan every
 * execution again (it guesses 100 elements per array in a generic plan, so a
 * custom plan for the few it gets always looks cheaper). Their connections
 * run with plan_cache_mode = force_generic_plan: planned once per connection.
 * The other statements keep PostgreSQL's default.
 *
 * With `options.readReplica`, a third pool of `poolSize` on the replica takes
 * the reads that allow it (SelectOptions.replica; see postgres-replica.ts).
 */
export function openPostgresStore(url: string, options: StoreOptions): Store {
  const newPool = (connectionString: string) => {
    const created = new pg.Pool({
      connectionString,
      max: options.poolSize ?? 10,
      types,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    });
    // an idle client losing its connection must not crash the process
    created.on('error', () => undefined);
    // nor a client in use between two statements (a transaction's, say, or a background task's): pg emits
    // 'error' when no query is running to take it, and pg-pool listens only while the client is idle;
    // the statement that comes next fails instead, and the pool drops the client when it comes back
    created.on('connect', (client) => client.on('error', () => undefined));
    return created;
  };
  const pool = newPool(url);
  const readPool = newPool(withSessionSetting(url, 'plan_cache_mode', 'force_generic_plan'));
  const replicaUrl = options.readReplica?.url;
  const replicaPool = replicaUrl === undefined ? undefined : newPool(withSessionSetting(replicaUrl, 'plan_cache_mode', 'force_generic_plan'));

  const stats: StoreStats = { statements: 0 };
  // names are per process, so one text always has the same name on every connection of the pool
  const statementNames = new Map<string, string>();
  const statementName = (text: string): string | undefined => {
    let name = statementNames.get(text);
    if (name === undefined && statementNames.size < PREPARED_STATEMENTS_MAX) {
      name = `netgraph_read_${statementNames.size}`;
      statementNames.set(text, name);
    }
    return name;
  };
  const readsOn = (readsPool: pg.Pool, readsUrl: string) =>
    createReadRunner({
      pool: readsPool,
      url: readsUrl,
      batchBudgetMs: options.readBatchBudgetMs ?? DEFAULT_READ_BATCH_BUDGET_MS,
      statementName,
      classify: classifyPostgresError,
      onStatement: () => {
        stats.statements += 1;
      },
    });
  const reads = readsOn(readPool, url);
  const router =
    replicaPool === undefined || replicaUrl === undefined
      ? undefined
      : createReplicaRouter({
          primary: reads,
          primaryUrl: url,
          replica: readsOn(replicaPool, replicaUrl),
          replicaUrl,
          maxLagMs: options.readReplica?.maxLagMs ?? DEFAULT_READ_REPLICA_MAX_LAG_MS,
        });
  const pools = replicaPool === undefined ? [pool, readPool] : [pool, readPool, replicaPool];
  const db = new Kysely<Database>({
    dialect: new CurrentSchemaPostgresDialect({ pool }),
    log: () => {
      stats.statements += 1;
    },
  });

  return {
    dialect: getDialect('postgres'),
    db,
    stats,
    transaction: (fn) => serializable(() => db.transaction().setIsolationLevel('serializable').execute((trx) => fn({ db: trx }))),
    // a deadlock is the only abort at read committed; the same retries cover it
    lockingTransaction: (fn) => serializable(() => db.transaction().setIsolationLevel('read committed').execute((trx) => fn({ db: trx }))),
    selectRow: (text, params, options = {}) => (router ?? reads).selectRow(text, params, options),
    ...(router === undefined ? {} : { replica: router.status }),
    async analyze(tables) {
      // ANALYZE with no list would take every schema of the database (another deployment's, or another test's)
      const names = tables ?? (await sql<{ name: string }>`SELECT relname AS name FROM pg_class
        WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition`.execute(db)).rows.map((row) => row.name);
      // a partitioned table's ANALYZE also analyzes its partitions
      if (names.length > 0) await sql`ANALYZE ${sql.join(names.map((name) => sql.table(name)))}`.execute(db);
    },
    // autovacuum's ANALYZE keeps them (docs/operations.md); imports and migrations analyze what they load
    refreshStatistics: async () => undefined,
    classifyError: classifyPostgresError,
    async ping() {
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw classifyPostgresError(error);
      }
    },
    poolState: () => ({
      inUse: sum(pools, (p) => p.totalCount - p.idleCount),
      waiting: sum(pools, (p) => p.waitingCount),
      size: sum(pools, (p) => p.options.max),
    }),
    async close() {
      await Promise.all([db.destroy(), readPool.end(), replicaPool?.end(), router?.stop()]);
    },
  };
}

function sum(pools: readonly pg.Pool[], count: (pool: pg.Pool) => number): number {
  return pools.reduce((total, p) => total + count(p), 0);
}

/**
 * The connection URL with one more run-time setting for its sessions, set at
 * connection start (`options=-c name=value`), after any options of the URL
 * itself or of PGOPTIONS; unchanged when it is not a WHATWG URL.
 */
export function withSessionSetting(url: string, name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // a URL only pg's own parser reads: its sessions keep the defaults
    return url;
  }
  const own = parsed.searchParams.get('options') ?? process.env.PGOPTIONS ?? '';
  parsed.searchParams.set('options', `${own} -c ${name}=${value}`.trim());
  return parsed.toString();
}
