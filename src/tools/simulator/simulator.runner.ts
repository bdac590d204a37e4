import type { Fleet } from './simulator.fleet.js';
import type { SimulatedReport } from './simulator.report.js';
import type { RejectedReport, ReportSink, SendResult } from './simulator.sink.js';

/** Where a run is: sending history, or reporting live. */
export interface SimulatorProgress {
  readonly phase: 'backfill' | 'live';
  /** Reports sent so far in this phase. */
  readonly sent: number;
  /** Reports the backfill sends in all; null while live. */
  readonly total: number | null;
  /** The latest report time sent (Unix seconds). */
  readonly at: number;
}

/** What a run sent and how the server answered. */
export interface SimulatorSummary {
  readonly devices: number;
  readonly reports: number;
  readonly backfillReports: number;
  readonly accepted: number;
  readonly duplicates: number;
  readonly rejected: number;
}

/** A run: the fleet, where its reports go, how much history first, and what stops it. */
export interface RunSimulatorOptions {
  readonly fleet: Fleet;
  readonly sink: ReportSink;
  /** Seconds of history sent first, at the fleet's interval (default 0). */
  readonly backfillSeconds?: number;
  /** Ends the run: the live loop stops, a wait or retry is cut short, and the summary is returned. */
  readonly signal: AbortSignal;
  /** Live ticks to send before returning (default: until the signal). */
  readonly maxLiveTicks?: number;
  /** The clock in milliseconds (default Date.now). */
  readonly now?: () => number;
  /** Waits `ms` or until the signal aborts (default: a timer). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly onProgress?: (progress: SimulatorProgress) => void;
  readonly onRejected?: (rejected: readonly RejectedReport[]) => void;
  /** Reports handed to the sink at once (default 1,000; whole networks, so a chunk may hold a few more). */
  readonly chunkSize?: number;
}

/** Waits `ms` (at once when not positive), or less when the signal aborts first; never rejects. */
export function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

type Totals = { reports: number; backfillReports: number; accepted: number; duplicates: number; rejected: number };

/** Sends reports through the sink and counts the answers; `deliver` is false when the signal ended the send. */
function createDelivery(options: RunSimulatorOptions) {
  const totals: Totals = { reports: 0, backfillReports: 0, accepted: 0, duplicates: 0, rejected: 0 };
  const deliver = async (reports: readonly SimulatedReport[]): Promise<boolean> => {
    if (reports.length === 0) return true;
    let result: SendResult;
    try {
      result = await options.sink.send(reports);
    } catch (error) {
      if (options.signal.aborted) return false;
      throw error;
    }
    totals.reports += reports.length;
    totals.accepted += result.accepted;
    totals.duplicates += result.duplicates;
    totals.rejected += result.rejected.length;
    if (result.rejected.length > 0) options.onRejected?.(result.rejected);
    return true;
  };
  return { totals, deliver };
}

/** Reports handed to the sink at once (default of `chunkSize`). */
const CHUNK_SIZE = 1000;

/**
 * Hands the chunks to the sink one after another, each built while the one
 * before is on its way, so at most two are held and the event loop is never
 * blocked for longer than building one; `onSent` after each delivered chunk.
 * Resolves false when the signal ended a send.
 */
async function sendChunks<C extends { readonly reports: readonly SimulatedReport[] }>(
  options: RunSimulatorOptions,
  chunks: Iterable<C>,
  delivery: ReturnType<typeof createDelivery>,
  onSent: (chunk: C) => void,
): Promise<boolean> {
  let inFlight: Promise<boolean> = Promise.resolve(true);
  for (const chunk of chunks) {
    if (options.signal.aborted) break;
    if (!(await inFlight)) return false;
    inFlight = delivery.deliver(chunk.reports).then((delivered) => {
      if (delivered) onSent(chunk);
      return delivered;
    });
  }
  return inFlight;
}

/** The reports of `ticks` in chunks of at least `size` (small fleets' ticks together), each with the time of its last report. */
function* backfillChunks(fleet: Fleet, ticks: readonly number[], size: number): Generator<{ reports: SimulatedReport[]; at: number }> {
  let pending: SimulatedReport[] = [];
  for (const [i, t] of ticks.entries()) {
    for (const chunk of fleet.reportChunksAt(t, size)) {
      for (const report of chunk) pending.push(report);
      if (pending.length >= size) {
        yield { reports: pending, at: t };
        pending = [];
      }
    }
    if (i === ticks.length - 1 && pending.length > 0) yield { reports: pending, at: t };
  }
}

/** Sends the reports of `ticks` as history, with progress after each chunk. */
async function backfill(options: RunSimulatorOptions, ticks: readonly number[], delivery: ReturnType<typeof createDelivery>): Promise<void> {
  const total = ticks.reduce((n, t) => n + options.fleet.reportCountAt(t), 0);
  await sendChunks(options, backfillChunks(options.fleet, ticks, options.chunkSize ?? CHUNK_SIZE), delivery, ({ reports, at }) => {
    delivery.totals.backfillReports += reports.length;
    options.onProgress?.({ phase: 'backfill', sent: delivery.totals.backfillReports, total, at });
  });
}

/** The reports of one live tick in chunks of at least `size`. */
function* tickChunks(fleet: Fleet, t: number, size: number): Generator<{ reports: SimulatedReport[] }> {
  for (const reports of fleet.reportChunksAt(t, size)) yield { reports };
}

/**
 * Runs the simulator: first `backfillSeconds` of history, then a report of
 * every device that is up at each multiple of the interval, waiting for its
 * time, until the signal aborts (or `maxLiveTicks`). Report times are
 * multiples of the interval since the epoch, so two runs with the same seed
 * and interval send the same reports for the times they share.
 */
export async function runSimulator(options: RunSimulatorOptions): Promise<SimulatorSummary> {
  const { fleet, signal } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const interval = fleet.intervalSeconds;
  const delivery = createDelivery(options);
  const current = Math.floor(now() / 1000 / interval) * interval;
  const backfillTicks = Math.floor((options.backfillSeconds ?? 0) / interval);
  await backfill(options, Array.from({ length: backfillTicks }, (_, i) => current - (backfillTicks - 1 - i) * interval), delivery);

  const { totals } = delivery;
  let tick = backfillTicks > 0 ? current + interval : current;
  for (let sentTicks = 0; !signal.aborted && sentTicks < (options.maxLiveTicks ?? Infinity); sentTicks++, tick += interval) {
    await sleep(tick * 1000 - now(), signal);
    if (signal.aborted || !(await sendChunks(options, tickChunks(fleet, tick, options.chunkSize ?? CHUNK_SIZE), delivery, () => undefined))) break;
    options.onProgress?.({ phase: 'live', sent: totals.reports - totals.backfillReports, total: null, at: tick });
  }
  return { devices: fleet.serialNumbers.length, ...totals };
}
