/**
 * The online rule (docs/reports.md): a hardware device is online while its
 * last report is younger than the offline window (OFFLINE_AFTER_SECONDS);
 * before it has reported, its stored flag as imported or created decides.
 * Said once here, as the time the window starts, a TypeScript predicate and
 * the SQL expression, so the reads, the ingest, the offline check and the
 * webhook alerts never disagree.
 */

/** The offline window when DEVICE_OFFLINE_AFTER_SECONDS does not set it: a device is offline 90 s after its last report. */
export const DEFAULT_OFFLINE_AFTER_SECONDS = 90;

/** The start of the offline window at `at` (ms since the epoch): a report observed at or after it counts. */
export function onlineSince(at: number, offlineMs: number): string {
  return new Date(at - offlineMs).toISOString();
}

/** True when a report observed at `observedAt` (RFC 3339) still counts at `at`: it is inside the offline window. */
export function isOnlineAt(observedAt: string, at: number, offlineMs: number): boolean {
  return Date.parse(observedAt) >= at - offlineMs;
}

/**
 * The SQL of the rule: `lastSeenAt` (an expression yielding the last report's
 * time) against `since` (the window's start, a parameter). NULL when there is
 * no report; with `beforeReport`, that expression decides then instead
 * (NULL >= x is NULL, so coalesce falls through to it).
 */
export function onlineSql(lastSeenAt: string, since: string, beforeReport?: string): string {
  const reported = `${lastSeenAt} >= ${since}`;
  return beforeReport === undefined ? reported : `coalesce(${reported}, ${beforeReport})`;
}

/** The last report's time of the hardware device whose id is `deviceId`, as a scalar subquery (aliasing hardware_devices `alias`). */
export function deviceLastSeenSql(deviceId: string, alias: string): string {
  return `(SELECT ${alias}.last_seen_at FROM hardware_devices ${alias} WHERE ${alias}.id = ${deviceId})`;
}
