import type { ReportService } from './report.service.js';

/** How often expired telemetry, events and history are deleted. */
const EXPIRY_INTERVAL_MS = 60_000;

/** What the background tasks report their failures to. */
export interface TaskLog {
  warn(details: object, message: string): void;
}

/** The offline check's period: at most 10 seconds and at most half the offline window. */
export function offlineCheckIntervalMs(offlineAfterSeconds: number): number {
  return Math.min(10_000, (offlineAfterSeconds * 1000) / 2);
}

/**
 * Runs the offline checker and the retention sweep in the background of a
 * server process, each never overlapping itself. Every process runs them;
 * the checker records each transition once whatever their number. Returns
 * the function that stops them and waits for a run in progress.
 */
export function startReportTasks(reports: ReportService, offlineAfterSeconds: number, log: TaskLog): () => Promise<void> {
  const running = new Set<Promise<unknown>>();
  const every = (ms: number, name: string, task: () => Promise<unknown>) => {
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      const run = task()
        .catch((error: unknown) => log.warn({ err: error }, `${name} failed; will retry`))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    // at once too: on PostgreSQL the first run makes today's partitions before reports fill DEFAULT
    tick();
    return setInterval(tick, ms).unref();
  };
  const timers = [
    every(offlineCheckIntervalMs(offlineAfterSeconds), 'device offline check', () => reports.checkOffline()),
    every(EXPIRY_INTERVAL_MS, 'telemetry retention', () => reports.expire()),
  ];
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running);
  };
}
