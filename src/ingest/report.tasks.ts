import { createPeriodicTasks } from '../platform/tasks/periodic.js';
import type { TaskLog } from '../platform/tasks/periodic.js';
import type { ReportService } from './report.service.js';

export type { TaskLog } from '../platform/tasks/periodic.js';

/** How often expired telemetry, events and history are deleted. */
const EXPIRY_INTERVAL_MS = 60_000;
/** How often the planner's statistics of tables that changed much are gathered again (Store.refreshStatistics). */
const STATISTICS_INTERVAL_MS = 3_600_000;

/** The offline check's period: at most 10 seconds and at most half the offline window. */
export function offlineCheckIntervalMs(offlineAfterSeconds: number): number {
  return Math.min(10_000, (offlineAfterSeconds * 1000) / 2);
}

/**
 * Runs the offline checker and the retention sweep in the background of a
 * server process, each never overlapping itself. Every process runs them;
 * the checker records each transition once whatever their number.
 * `alsoExpire` runs with the retention sweep (the API request log);
 * `statistics`, hourly and at once, refreshes the planner's statistics of
 * tables that grew or shrank much. Returns the function that stops them and
 * waits for a run in progress.
 */
export function startReportTasks(
  reports: ReportService,
  offlineAfterSeconds: number,
  log: TaskLog,
  alsoExpire?: { expire(): Promise<number> },
  statistics?: { refreshStatistics(): Promise<void> },
): () => Promise<void> {
  const tasks = createPeriodicTasks(log);
  // at once too: on PostgreSQL the first run makes today's partitions before reports fill DEFAULT
  tasks.every(offlineCheckIntervalMs(offlineAfterSeconds), 'device offline check', () => reports.checkOffline());
  // what else is kept by day (the API request log, features/request-log): after the telemetry, in the same run
  tasks.every(EXPIRY_INTERVAL_MS, 'telemetry retention', async () => (await reports.expire()) + ((await alsoExpire?.expire()) ?? 0));
  if (statistics) tasks.every(STATISTICS_INTERVAL_MS, 'planner statistics', () => statistics.refreshStatistics());
  return () => tasks.stop();
}
