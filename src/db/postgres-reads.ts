import pg from 'pg';
import { createDeadlineWatcher } from './deadline-watcher.js';
import type { DeadlineEntry } from './deadline-watcher.js';
import { statementTimeout } from './store.js';
import type { Row, SelectOptions } from './store.js';

/**
 * How many statements of one batchable text run at once, per process, before
 * more reads of it are held back; reads that arrive meanwhile go together in
 * the next statement, sent when one of these ends (or when it is full). One
 * coalesces the most: measured against 2 and 3 (docs/benchmarks.md), it gave
 * the most requests per second and the lowest median latency under load.
 */
const RUNNING_PER_TEXT = 1;
/** The most reads one statement answers. */
export const BATCH_MAX = 64;
/** How long a cancelled statement may take to stop before the caller is answered anyway. */
const CANCEL_GRACE_MS = 2_000;

/** The one timer behind every deadline of the process's reads (see deadline-watcher.ts for why one). */
const deadlines = createDeadlineWatcher();

/** A checked-out client has no listener for 'error': a connection lost mid-query would crash the process. */
const ignoreLostConnection = () => undefined;

/** What the reads of a store run on. */
export interface ReadRunnerDeps {
  readonly pool: pg.Pool;
  /** For the connection that cancels a statement past its deadline. */
  readonly url: string;
  /**
   * How long, by the text's estimated cost per read (`learn`), the reads of
   * one batch may take together. It bounds how many reads a batch takes, so a read waits for at
   * most about this long because of the others; a text whose single read
   * takes half of it or more is never batched nor held back. 0: never batch.
   */
  readonly batchBudgetMs: number;
  /** The prepared statement's name for a text, or undefined when it runs unprepared. */
  readonly statementName: (text: string) => string | undefined;
  /** Maps a driver failure to what the caller should see. */
  readonly classify: (error: unknown) => unknown;
  /** Told of every statement sent. */
  readonly onStatement: () => void;
}

/** One caller of a raw read, with its parameters. */
interface Reader {
  readonly params: readonly unknown[];
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** What the runner knows about one batchable text. */
interface TextState {
  readonly batchText: string;
  /** Its statements sent and not yet ended. */
  running: number;
  /** The batch that still takes reads, if any: held back, or sent and waiting for a connection. */
  open: ReadBatch | undefined;
  /** What one read of it costs, by its recent statements (see `learn`), in ms. */
  perReadMs: number;
}

/**
 * Runs the raw reads of a PostgreSQL store: one statement per read, or, for
 * a text with a batch form (SelectOptions.batchText), one statement for the
 * reads of that text that arrive while its statements are busy.
 *
 * Why: an integration polls the same documents all day, from every company,
 * so under load many reads of one text are in flight at once. Each statement
 * costs a round trip, a backend wake-up and the protocol's work on both sides
 * whatever it reads; a point read spends most of its time there. Coalescing
 * pays that once for a batch. A read never waits for a batch to fill: when
 * fewer than RUNNING_PER_TEXT statements of its text run it is sent at once,
 * otherwise it waits for one of them to end (a cheap statement, by its
 * estimate), which is when the next batch goes, or for the batch budget at
 * most, or until the batch is full. Each reader still gets only
 * its own row, with its own key check and company scope, computed by the same
 * SQL as its single read.
 */
export function createReadRunner(deps: ReadRunnerDeps) {
  const { batchBudgetMs } = deps;
  // only prepared texts are batched, so this holds at most PREPARED_STATEMENTS_MAX entries (their batch forms are prepared when first used)
  const texts = new Map<string, TextState>();

  function stateOf(text: string, batchText: string | undefined): TextState | undefined {
    if (batchText === undefined || batchBudgetMs === 0) return undefined;
    const known = texts.get(text);
    if (known !== undefined) return known;
    if (deps.statementName(text) === undefined) return undefined;
    // until a statement has been timed, a read is assumed to take the whole budget: no batching yet
    const state: TextState = { batchText, running: 0, open: undefined, perReadMs: batchBudgetMs };
    texts.set(text, state);
    return state;
  }

  /** How many reads a batch of this text takes, by its recent average. */
  function capacity(state: TextState): number {
    return Math.max(1, Math.min(BATCH_MAX, Math.floor(batchBudgetMs / state.perReadMs)));
  }

  /** A statement of this text has ended: learn its time, send the next batch held back. */
  function ended(state: TextState, readers: number, ms: number | undefined): void {
    state.running -= 1;
    if (ms !== undefined) state.perReadMs = learn(state.perReadMs, ms / readers, batchBudgetMs);
    if (state.open?.held === true) state.open.send();
  }

  return {
    /** Runs one read; see Store.selectRow. */
    selectRow(text: string, params: readonly unknown[], options: SelectOptions): Promise<Row | undefined> {
      return new Promise((resolve, reject) => {
        const reader: Reader = { params, resolve, reject };
        const state = stateOf(text, options.batchText);
        const deadline = options.deadline ?? Infinity;
        const open = state?.open;
        if (state !== undefined && open !== undefined) {
          open.join(reader, deadline);
          // a full batch takes no more reads; held back, it goes now rather than hold its readers any longer
          if (open.readers.length >= capacity(state)) {
            state.open = undefined;
            if (open.held) open.send();
          }
          return;
        }
        const batch = new ReadBatch(deps, text, state, reader, deadline, ended);
        // a text whose reads are not cheap is never held back nor batched: each read gets its own statement
        if (state === undefined || capacity(state) === 1) return batch.send();
        state.open = batch;
        if (state.running < RUNNING_PER_TEXT) batch.send();
        // held back: it goes when a statement of its text ends, when it is full, or after the budget at the latest
        else batch.holdAtMost(batchBudgetMs);
      });
    },
  };
}

/**
 * The next estimate of what one read of a text costs, from the last one and
 * a statement's time divided by its reads (`sample`, in ms). A statement's
 * time is measured in this process, from the query sent to its callback, so
 * it also holds whatever delayed that callback: a busy event loop, a garbage
 * collection, the process waiting for a core. Those only ever add, and they
 * weigh most on a statement of one read, which is what a text gets while its
 * estimate is high: an average of the samples (as before 2026-11-26) let one
 * slow callback stop a cheap text's batching, and under load its single
 * reads then kept the estimate up, so a server could stay for minutes at
 * about twice the statements per request of an identical one. So the
 * estimate follows a lower sample at once halfway and a higher one only a
 * twentieth of the way, capped at the budget: a cheap text gets back to
 * batching within a few statements, and a text whose reads are truly
 * expensive still reaches the budget (no batching) within a few dozen.
 */
function learn(estimate: number, sample: number, budgetMs: number): number {
  const bounded = Math.min(sample, budgetMs);
  return estimate + (bounded < estimate ? 0.5 : 0.05) * (bounded - estimate);
}

/**
 * One statement and the reads it answers, from the first read to the
 * statement's end: the first read's own statement, or the batch form when
 * more reads of its text joined before it was sent (each parameter then an
 * array of the readers' values). It settles every reader once: with its row
 * when the statement ends in time, with TIMEOUT when the deadline (the
 * earliest of its readers') passes first. Then the statement is cancelled in
 * the server (pg_cancel_backend, from a connection of its own so a full pool
 * cannot block the cancel), and the readers get TIMEOUT once it has stopped,
 * or after a grace period (its connection is then discarded, never reused
 * while busy). When the deadline passes before the statement is sent, the
 * readers get TIMEOUT at once, and a connection that comes later goes back to
 * the pool unused.
 */
class ReadBatch implements DeadlineEntry {
  readonly readers: Reader[];
  /** The earliest deadline of its readers, as a performance.now() time; Infinity when none has one. */
  deadline: number;
  watchPrev: DeadlineEntry | null = null;
  watchNext: DeadlineEntry | null = null;
  private client: pg.PoolClient | undefined;
  // the readers are settled, or are told TIMEOUT when the statement stops
  private settled = false;
  private expired = false;
  // asked the pool for a connection; then it counts as running for its text until `end`
  private sent = false;
  private ended = false;
  private sentAt: number | undefined;
  private grace: NodeJS.Timeout | undefined;
  private holdTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: ReadRunnerDeps,
    private readonly text: string,
    private readonly state: TextState | undefined,
    first: Reader,
    deadline: number,
    private readonly onEnded: (state: TextState, readers: number, ms: number | undefined) => void,
  ) {
    this.readers = [first];
    this.deadline = deadline;
    if (deadline !== Infinity) deadlines.add(this);
  }

  /** True until it is sent: held back while a statement of its text runs. */
  get held(): boolean {
    return !this.sent && !this.expired;
  }

  /**
   * Sends the batch after `ms` if it is still held then: a statement of its
   * text that runs far longer than its average (a lock, a cold read) holds
   * the reads behind it for no longer than that.
   */
  holdAtMost(ms: number): void {
    this.holdTimer = setTimeout(() => {
      if (this.held) this.send();
    }, ms);
    this.holdTimer.unref();
  }

  /** Adds a reader; the batch's deadline is the earliest of its readers'. */
  join(reader: Reader, deadline: number): void {
    this.readers.push(reader);
    if (deadline < this.deadline) {
      deadlines.delete(this);
      this.deadline = deadline;
      deadlines.add(this);
    }
  }

  /** Asks the pool for a connection to run the statement on. */
  send(): void {
    clearTimeout(this.holdTimer);
    this.sent = true;
    if (this.state !== undefined) this.state.running += 1;
    this.deps.pool.connect((error, client) => this.connected(error, client));
  }

  /** The pool's answer: a connection to run the statement on, or why there is none. */
  private connected(error: Error | undefined, client: pg.PoolClient | undefined): void {
    if (this.expired) {
      // the readers have had TIMEOUT: a connection that comes this late goes back to the pool unused
      client?.release();
      this.end(undefined);
      return;
    }
    if (client === undefined) {
      this.fail(error);
      this.end(undefined);
      return;
    }
    this.client = client;
    this.close();
    client.on('error', ignoreLostConnection);
    this.deps.onStatement();
    this.sentAt = performance.now();
    // the callback form: pg's promise form keeps each result reachable from promises that outlive the read
    // in the young generation's eyes, so every response's rows were promoted to the old one (docs/benchmarks.md)
    client.query<Row>(this.statement(), (failure: Error | undefined, result: pg.QueryResult<Row>) => {
      if (failure) this.failed(failure);
      else this.succeeded(result.rows);
    });
  }

  /** Called by the deadline watcher when the deadline passes first. */
  onExpired(): void {
    this.expired = true;
    if (this.client === undefined) {
      // held back, or waiting for a connection (which `connected` gives back unused)
      clearTimeout(this.holdTimer);
      this.close();
      this.fail(statementTimeout());
      return;
    }
    void cancelBackend(this.deps.url, (this.client as unknown as { processID?: number }).processID);
    this.grace = setTimeout(() => this.fail(statementTimeout()), CANCEL_GRACE_MS).unref();
  }

  /** Takes no more readers. */
  private close(): void {
    if (this.state?.open === this) this.state.open = undefined;
  }

  /** The statement for the readers there are, named when it is prepared. */
  private statement(): pg.QueryConfig {
    const { readers, state } = this;
    let query: pg.QueryConfig;
    if (readers.length === 1 || state === undefined) {
      query = { text: this.text, values: (readers[0] as Reader).params as unknown[] };
    } else {
      const width = (readers[0] as Reader).params.length;
      const values: unknown[][] = [];
      for (let p = 0; p < width; p++) values.push(readers.map((reader) => reader.params[p]));
      query = { text: state.batchText, values };
    }
    // prepared once per connection: PostgreSQL parses and plans the statement once, not on every request
    const name = this.deps.statementName(query.text);
    return name === undefined ? query : { ...query, name };
  }

  private succeeded(rows: readonly Row[]): void {
    if (this.expired) return this.stopped();
    deadlines.delete(this);
    this.release();
    this.end(performance.now() - (this.sentAt as number));
    this.settled = true;
    const { readers } = this;
    if (readers.length === 1) {
      (readers[0] as Reader).resolve(rows[0]);
      return;
    }
    // each reader's row carries its 1-based position
    const byPosition = new Array<Row | undefined>(readers.length);
    for (const row of rows) byPosition[Number(row.i) - 1] = row;
    readers.forEach((reader, i) => reader.resolve(byPosition[i]));
  }

  private failed(error: unknown): void {
    if (this.expired) return this.stopped();
    deadlines.delete(this);
    this.release(error instanceof Error ? error : true);
    this.end(undefined);
    this.fail(error);
  }

  /**
   * The statement a cancel was sent to has stopped. Even a result that beat
   * the cancel is late, and the connection may yet receive the cancel: it is
   * never reused.
   */
  private stopped(): void {
    clearTimeout(this.grace);
    this.release(true);
    this.end(undefined);
    this.fail(statementTimeout());
  }

  private fail(error: unknown): void {
    // a batch whose connection never came (the database restarting) was still open: a read joining it
    // now would wait for an answer that was already given, with every later read of its text behind it
    this.close();
    if (this.settled) return;
    this.settled = true;
    deadlines.delete(this);
    const classified = this.deps.classify(error);
    for (const reader of this.readers) reader.reject(classified);
  }

  /** Tells the text's state once that this statement no longer runs (or will never be sent). */
  private end(ms: number | undefined): void {
    const { state } = this;
    if (state === undefined || !this.sent || this.ended) return;
    this.ended = true;
    this.onEnded(state, this.readers.length, ms);
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
