/** One request made with an API key, as the key's request log keeps it (docs/operations.md, "Request log"). */
export interface KeyRequest {
  /** When the request arrived, in ms since the epoch. */
  readonly at: number;
  /** The key's row id (api_keys.id). */
  readonly keyId: number;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly operationName: string | null;
  readonly rootFields: readonly string[];
  readonly status: number;
  readonly errorCodes: readonly string[];
  /** The actual complexity cost charged; null when nothing was (a refusal, a report). */
  readonly cost: number | null;
  readonly durationMs: number;
  readonly statements: number;
  readonly clientAddress: string | null;
  readonly userAgent: string | null;
}

/** How the writer batches (the defaults are the server's). */
export interface RequestLogWriterOptions {
  /** A flush is started once this many requests wait. */
  readonly batchRows?: number;
  /** The most requests that may wait; later ones are dropped (and counted) until a flush makes room. */
  readonly maxPending?: number;
  /** How often waiting requests are written. */
  readonly flushMs?: number;
  /** The shortest time between two reports of lost rows. */
  readonly reportEveryMs?: number;
  readonly now?: () => number;
}

/**
 * Where the writer gathers requests until a flush: add() keeps one (on the
 * request's path: no I/O), take() hands over what was gathered as the rows
 * to write and starts anew.
 */
export interface RequestGathering<Rows> {
  add(request: KeyRequest): void;
  readonly size: number;
  take(): Rows;
}

/** Told of requests that could not be written: the error (none when the buffer was full) and how many were lost since the last report. */
export type LostRowsReport = (lost: number, error: unknown) => void;

/**
 * A flush at 10,000 waiting requests, not 1,000: on SQLite each flush's
 * commit makes the other server processes drop their page cache of the
 * file, so a busy process flushes about once a second (docs/benchmarks.md,
 * the request log). 50,000 waiting requests are about 3 MB of JSON text,
 * outside the heap (request-log.repository.ts, EntryText).
 */
const DEFAULTS = { batchRows: 10_000, maxPending: 50_000, flushMs: 1_000, reportEveryMs: 60_000 };

/**
 * Writes the request log in batches, off the requests' path: record() only
 * adds to the gathering; once started, a timer writes what was gathered
 * every `flushMs` and a flush also starts once `batchRows` wait, each flush
 * one `write` of everything gathered (the repository's: one compact row per
 * key). At most `maxPending` requests wait: past that (the database is down
 * or slow), new ones are dropped. A batch that fails is dropped, not
 * retried: a request never waits for, or fails with, its log. What was lost
 * is reported with its count, at once the first time, then at most once
 * every `reportEveryMs`. Before start() nothing is written but by flush()
 * (tests, a process without background work).
 */
export function createRequestLogWriter<Rows>(write: (rows: Rows) => Promise<void>, gathering: RequestGathering<Rows>, options: RequestLogWriterOptions = {}) {
  const { batchRows, maxPending, flushMs, reportEveryMs } = { ...DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let report: LostRowsReport = () => undefined;
  let lost = 0;
  let lastError: unknown;
  let reportedAt = Number.NEGATIVE_INFINITY;

  const noteLost = (count: number, error: unknown) => {
    lost += count;
    if (error !== undefined) lastError = error;
    const at = now();
    if (at - reportedAt < reportEveryMs) return;
    reportedAt = at;
    report(lost, lastError);
    lost = 0;
    lastError = undefined;
  };

  /** One write of everything gathered when it starts: requests that come during it wait for the next flush. */
  let queued: Promise<void> | undefined;
  const writeGathered = async () => {
    queued = undefined;
    const count = gathering.size;
    if (count === 0) return;
    try {
      await write(gathering.take());
    } catch (error) {
      noteLost(count, error);
    }
  };

  // one write at a time, and at most one waiting behind it: it takes what was recorded before any flush() that
  // asked for it, so flush() resolves once every request recorded before it is written (or lost). A write does
  // not go on with what came in while it ran: under load that made a batch every few milliseconds, each its own
  // INSERT and commit, instead of one a second.
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (queued === undefined) {
      queued = writing.then(writeGathered);
      writing = queued;
    }
    return queued;
  };

  return {
    /** Keeps a request for the next batch: no I/O, no await. */
    record(request: KeyRequest): void {
      if (gathering.size >= maxPending) {
        noteLost(1, undefined);
        return;
      }
      gathering.add(request);
      if (timer !== undefined && gathering.size === batchRows) void flush();
    },
    /** Writes every request waiting now. */
    flush,
    /** How many requests wait to be written. */
    get pending(): number {
      return gathering.size;
    },
    /** Starts the timer; `onLost` is told of requests that could not be written. */
    start(onLost: LostRowsReport): void {
      report = onLost;
      timer ??= setInterval(() => void flush(), flushMs).unref();
    },
    /** Stops the timer and writes what waits (a graceful shutdown). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}

export type RequestLogWriter = ReturnType<typeof createRequestLogWriter<unknown>>;
