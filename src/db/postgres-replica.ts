import pg from 'pg';
import { isAppError } from '../kernel/errors.js';
import type { createReadRunner } from './postgres-reads.js';
import type { ReadReplicaStatus, ReplicaState, Row, SelectOptions } from './store.js';

type ReadRunner = ReturnType<typeof createReadRunner>;

/** What the replica router reads from and checks. */
export interface ReplicaRouterDeps {
  /** The compiled reads' runner on the primary, and the primary's URL (for its WAL position). */
  readonly primary: ReadRunner;
  readonly primaryUrl: string;
  /** The same on the replica. */
  readonly replica: ReadRunner;
  readonly replicaUrl: string;
  /** READ_REPLICA_MAX_LAG_MS. */
  readonly maxLagMs: number;
}

/** The check runs at least this often, and more often under a small bound, so the bound holds within a fraction of it. */
const MAX_CHECK_INTERVAL_MS = 1_000;
const MIN_CHECK_INTERVAL_MS = 100;
/** The most primary positions kept while the replica has not replayed them. */
const MAX_PENDING_SAMPLES = 1_000;

/** The server's WAL position as a byte count; on a standby, how far it has replayed. */
const PRIMARY_POSITION = `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::float8 AS lsn`;
// a server that is not a standby (READ_DATABASE_URL naming the primary itself) is never behind
const REPLICA_POSITION = `SELECT (CASE WHEN pg_is_in_recovery() THEN coalesce(pg_last_wal_replay_lsn(), '0/0'::pg_lsn) ELSE pg_current_wal_insert_lsn() END - '0/0'::pg_lsn)::float8 AS lsn`;

/** One sample of the primary's WAL position: where it was, and when (performance.now()). */
interface Sample {
  readonly at: number;
  readonly lsn: number;
}

/**
 * Sends the reads that allow it (SelectOptions.replica) to a streaming
 * replica while it answers and is at most `maxLagMs` behind; every other
 * read, and all of them when it is down or too far behind, go to the primary.
 *
 * How far behind: every check samples the primary's WAL position and the
 * replica's replayed position. The replica's lag is the age of the oldest
 * sample it has not replayed yet, so an idle primary never makes a caught-up
 * replica look late (as now() - pg_last_xact_replay_timestamp() would), and
 * every time is this process's clock. A read sees data at most the bound plus
 * two check intervals old (one for the sampling, one for the state's age).
 *
 * A replica that fails a read (connection refused, reset, cannot connect
 * now) is taken out at once and the read runs again on the primary, so
 * requests keep answering; the next check that reaches it within the bound
 * brings it back. Each change of target or reason is told to `onChange`
 * listeners once.
 */
export function createReplicaRouter(deps: ReplicaRouterDeps) {
  const { primary, replica, maxLagMs } = deps;
  // connections of their own: a check never queues behind the reads or writes of a busy pool
  const primaryCheck = createCheckConnection(deps.primaryUrl);
  const replicaCheck = createCheckConnection(deps.replicaUrl);
  const interval = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(maxLagMs / 4)));
  let state: ReplicaState = { target: 'primary', reason: 'starting', lagMs: null };
  const listeners: ((state: ReplicaState, error?: unknown) => void)[] = [];
  // the primary's positions the replica had not replayed at the last check, oldest first
  let pending: Sample[] = [];

  function setState(next: ReplicaState, error?: unknown): void {
    // lag changes every check; where reads go, and why, is what an operator is told about
    const changed = next.target !== state.target || next.reason !== state.reason;
    state = next;
    if (changed) for (const listener of listeners) listener(next, error);
  }

  async function check(): Promise<void> {
    let replayed: number;
    try {
      replayed = await replicaCheck.position(REPLICA_POSITION);
    } catch (error) {
      return setState({ target: 'primary', reason: 'unavailable', lagMs: state.lagMs }, error);
    }
    try {
      pending.push({ at: performance.now(), lsn: await primaryCheck.position(PRIMARY_POSITION) });
    } catch {
      // the primary is down: nothing to compare with, and every read fails on the key check anyway
      return;
    }
    pending = pending.filter((sample) => sample.lsn > replayed);
    // a replica paused for days keeps the list bounded; the oldest sample, which gives the lag, stays
    if (pending.length > MAX_PENDING_SAMPLES) pending.splice(1, 1);
    const lagMs = pending.length === 0 ? 0 : Math.round(performance.now() - (pending[0] as Sample).at);
    setState(lagMs > maxLagMs ? { target: 'primary', reason: 'lagging', lagMs } : { target: 'replica', reason: 'in-use', lagMs });
  }

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = (): void => {
    check().then(
      () => {
        if (!stopped) timer = setTimeout(loop, interval).unref();
      },
      () => undefined,
    );
  };
  loop();

  /** The read on the replica; a replica that is not there any more is taken out and the read runs on the primary. */
  async function onReplica(text: string, params: readonly unknown[], options: SelectOptions): Promise<Row | undefined> {
    try {
      return await replica.selectRow(text, params, options);
    } catch (error) {
      if (!isAppError(error, 'SERVICE_UNAVAILABLE')) throw error;
      if (state.target === 'replica') setState({ target: 'primary', reason: 'unavailable', lagMs: state.lagMs }, error);
      return primary.selectRow(text, params, options);
    }
  }

  const status: ReadReplicaStatus = {
    state: () => state,
    onChange: (listener) => void listeners.push(listener),
  };

  return {
    status,

    /** Runs one read where it belongs; see SelectOptions.replica. */
    async selectRow(text: string, params: readonly unknown[], options: SelectOptions): Promise<Row | undefined> {
      const fresh = options.replica?.fresh;
      if (options.replica === undefined || state.target !== 'replica') return primary.selectRow(text, params, options);
      if (fresh === undefined) return onReplica(text, params, options);
      // both at once: the answer waits for the slower, never for the sum
      const freshOptions = { ...(options.deadline !== undefined ? { deadline: options.deadline } : {}), ...(fresh.batchText !== undefined ? { batchText: fresh.batchText } : {}) };
      const [row, freshRow] = await Promise.all([onReplica(text, params, options), primary.selectRow(fresh.text, fresh.params, freshOptions)]);
      return row === undefined || freshRow === undefined ? row : { ...row, ...freshRow };
    },

    /** Stops the checks and closes their connections. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([primaryCheck.close(), replicaCheck.close()]);
    },
  };
}

/** How long a check may wait for a connection or an answer before the server counts as unavailable. */
const CHECK_TIMEOUT_MS = 5_000;

/** One connection for the checks of one server, opened when needed and again after a failure, until closed. */
function createCheckConnection(url: string) {
  let client: pg.Client | undefined;
  let closed = false;
  const drop = async (): Promise<void> => {
    const dropped = client;
    client = undefined;
    await dropped?.end().catch(() => undefined);
  };
  return {
    /** Runs one of the position queries above. */
    async position(text: string): Promise<number> {
      if (closed) throw new Error('replica-check-closed');
      try {
        if (client === undefined) {
          client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS });
          // a lost connection fails the next check, which opens another
          client.on('error', () => undefined);
          await client.connect();
        }
        const result = await client.query<{ lsn: number }>(text);
        return Number(result.rows[0]?.lsn);
      } catch (error) {
        await drop();
        throw error;
      } finally {
        // closed while this check ran: its connection goes too
        if (closed) await drop();
      }
    },
    /** Closes the connection; checks fail from now on. */
    async close(): Promise<void> {
      closed = true;
      await drop();
    },
  };
}
