import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { AppError } from '../errors.js';
import { createDeadlineWatcher } from './deadline-watcher.js';
import type { DeadlineEntry } from './deadline-watcher.js';
import { getDialect } from './dialect.js';
import { statementTimeout } from './store.js';
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
  if (code === '57014') return statementTimeout();
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

/**
 * How many distinct read statements a process keeps prepared on each
 * connection. The compiled read path sends one text per document, so a few
 * dozen cover an integration's polling; texts beyond the bound run unprepared
 * so the server's memory per connection stays bounded.
 */
export const PREPARED_STATEMENTS_MAX = 200;

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
    async selectRow(text, params, options = {}) {
      stats.statements += 1;
      try {
        // prepared once per connection: PostgreSQL parses and plans the statement once, not on every request
        const name = statementName(text);
        const query = { text, values: params as unknown[], ...(name === undefined ? {} : { name }) };
        if (options.deadline === undefined) return (await pool.query<Row>(query)).rows[0];
        return await queryBefore(pool, url, options.deadline, query);
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

/** How long a cancelled statement may take to stop before the caller is answered anyway. */
const CANCEL_GRACE_MS = 2_000;

/** The one timer behind every deadline of the process's reads (see deadline-watcher.ts for why one). */
const deadlines = createDeadlineWatcher();

/** A checked-out client has no listener for 'error': a connection lost mid-query would crash the process. */
const ignoreLostConnection = () => undefined;

/**
 * Runs a statement that must finish by `deadline` (a performance.now() time).
 * When it does not, it is cancelled in the server (pg_cancel_backend, from a
 * connection of its own so a full pool cannot block the cancel), and the
 * caller gets TIMEOUT once the statement has stopped, or after a grace period
 * (its connection is then discarded, never reused while busy). When the
 * deadline passes while it still waits for a connection, the caller gets
 * TIMEOUT at once, and the connection goes back to the pool when it comes.
 */
function queryBefore(pool: pg.Pool, url: string, deadline: number, query: pg.QueryConfig): Promise<Row | undefined> {
  return new Promise((resolve, reject) => {
    const read = new TimedRead(url, deadline, query, resolve, reject);
    deadlines.add(read);
    pool.connect((error, client) => read.connected(error, client));
  });
}

/**
 * One read with a deadline, from waiting for a connection to its statement's
 * end. It settles its caller's promise itself, once: the result or error of
 * the statement when it ends in time, TIMEOUT when the deadline watcher calls
 * onExpired first.
 */
class TimedRead implements DeadlineEntry {
  private client: pg.PoolClient | undefined;
  // the deadline passed before the read ended: its caller has TIMEOUT, or gets it when the statement stops
  private expired = false;
  private grace: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    readonly deadline: number,
    private readonly query: pg.QueryConfig,
    private readonly resolve: (row: Row | undefined) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  /** The pool's answer: a connection to run the statement on, or why there is none. */
  connected(error: Error | undefined, client: pg.PoolClient | undefined): void {
    if (this.expired) {
      // the caller has had TIMEOUT: a connection that comes this late goes back to the pool unused
      client?.release();
      return;
    }
    if (client === undefined) {
      deadlines.delete(this);
      this.reject(error);
      return;
    }
    this.client = client;
    client.on('error', ignoreLostConnection);
    // the promise form, as before: there pg gives a failure a fresh stack rather than the socket handler's
    client.query<Row>(this.query).then(
      (result) => this.succeeded(result),
      (failure: unknown) => this.failed(failure),
    );
  }

  /** Called by the deadline watcher when the deadline passes first. */
  onExpired(): void {
    this.expired = true;
    if (this.client === undefined) {
      this.reject(statementTimeout());
      return;
    }
    void cancelBackend(this.url, (this.client as unknown as { processID?: number }).processID);
    this.grace = setTimeout(() => this.reject(statementTimeout()), CANCEL_GRACE_MS).unref();
  }

  private succeeded(result: pg.QueryResult<Row>): void {
    if (this.expired) return this.stopped();
    deadlines.delete(this);
    this.release();
    this.resolve(result.rows[0]);
  }

  private failed(error: unknown): void {
    if (this.expired) return this.stopped();
    deadlines.delete(this);
    this.release(error instanceof Error ? error : true);
    this.reject(error);
  }

  /**
   * The statement a cancel was sent to has stopped. Even a result that beat
   * the cancel is late, and the connection may yet receive the cancel: it is
   * never reused.
   */
  private stopped(): void {
    clearTimeout(this.grace);
    this.release(true);
    this.reject(statementTimeout());
  }

  private release(destroy?: Error | boolean): void {
    const client = this.client as pg.PoolClient;
    client.off('error', ignoreLostConnection);
    client.release(destroy);
  }
}

/** Asks the server to cancel what the backend `pid` is running; failures are ignored (the grace period covers them). */
async function cancelBackend(url: string, pid: number | null | undefined): Promise<void> {
  if (pid === null || pid === undefined) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [pid]);
  } catch {
    // the statement's own end, or the grace period, answers the caller
  } finally {
    await client.end().catch(() => undefined);
  }
}
