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
  /** Reports handed to the sink at once during the backfill (default 1,000). */
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

/**
 * Sends the reports of `ticks` in chunks, with progress after each; the next
 * chunk is built while the one before is on its way.
 */
async function backfill(options: RunSimulatorOptions, ticks: readonly number[], delivery: ReturnType<typeof createDelivery>): Promise<void> {
  const total = ticks.reduce((n, t) => n + options.fleet.reportCountAt(t), 0);
  let pending: SimulatedReport[] = [];
  let inFlight: Promise<boolean> = Promise.resolve(true);
  for (const [i, t] of ticks.entries()) {
    if (options.signal.aborted) break;
    pending.push(...options.fleet.reportsAt(t));
    if (pending.length < (options.chunkSize ?? 1000) && i < ticks.length - 1) continue;
    const chunk = pending;
    pending = [];
    if (!(await inFlight)) return;
    inFlight = delivery.deliver(chunk).then((delivered) => {
      if (delivered) {
        delivery.totals.backfillReports += chunk.length;
        options.onProgress?.({ phase: 'backfill', sent: delivery.totals.backfillReports, total, at: t });
      }
      return delivered;
    });
  }
  await inFlight;
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
    if (signal.aborted || !(await delivery.deliver(fleet.reportsAt(tick)))) break;
    options.onProgress?.({ phase: 'live', sent: totals.reports - totals.backfillReports, total: null, at: tick });
  }
  return { devices: fleet.serialNumbers.length, ...totals };
}
