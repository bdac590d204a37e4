import type { SqlContext } from '../../engine/read.model.js';
import { filterOf, seriesRanges } from '../metrics/metrics.window.js';

/**
 * The SQL of controllerDNSRequestRates, as a derived table below a virtual
 * device row: the DNS request rate per bucket from the controller's
 * cumulative counter, across reboots, as portRates reads port counters.
 * Parameters are numbered in call order (SQLite's are positional).
 */

const COLUMNS = 'dc.observed_at, dc.uptime_seconds, dc.requests';

/** The id of the hardware assigned to the virtual device aliased `v`. */
const hardwareOf = (v: string): string => `(SELECT dh.id FROM hardware_devices dh WHERE dh.virtual_device_id = ${v}.id)`;

/**
 * The readings `w` with the previous reading's time (`p_at`) and the growth
 * since it: after a reboot (a counter lower than the previous reading's, or
 * a lower uptime) the reading counts whole, since the counter restarted from
 * zero; the first reading has no previous one (`p_at` NULL, growth 0).
 */
function increments(readings: string): string {
  return (
    '(SELECT x.observed_at, x.p_at, CASE WHEN x.p_requests IS NULL THEN 0 WHEN x.requests < x.p_requests OR x.uptime_seconds < x.p_uptime ' +
    'THEN x.requests ELSE x.requests - x.p_requests END AS requests FROM (SELECT w.*, lag(w.observed_at) OVER o AS p_at, ' +
    `lag(w.uptime_seconds) OVER o AS p_uptime, lag(w.requests) OVER o AS p_requests FROM (${readings}) w WINDOW o AS (ORDER BY w.observed_at)) x)`
  );
}

/**
 * Per bucket of the root's filter, the DNS requests per second of the
 * controller aliased `v`: the growth of its counter between consecutive
 * readings whose later one falls in the bucket, divided by the seconds
 * between those readings. The readings are metrics' sources (the last
 * reading of each 5-minute rollup wholly inside the window, raw readings
 * for the rest of it) and the last reading before the window, from the raw
 * readings and the rollups (one index lookup each).
 */
export function dnsRates(c: SqlContext, v: string): string {
  const ranges = (args: Parameters<typeof filterOf>[0], now: Date) => seriesRanges(filterOf(args), now);
  const start = () => c.value('timestamptz', (args, now) => ranges(args, now).raw[0][0]);
  const startBucket = () => c.value('bigint', (args, now) => Math.floor(Date.parse(ranges(args, now).raw[0][0]) / 1000));
  // in text order: the bucket's step, the readings, the window's start
  const bucket = c.dialect.epochBucket('i.observed_at', c.arg('filter.stepSeconds'));
  const mine = (t: string) => `${t}.hardware_device_id = ${hardwareOf(v)}`;
  const last = (table: string, bound: () => string) =>
    `SELECT * FROM (SELECT ${COLUMNS} FROM ${table} dc WHERE ${mine('dc')}${bound()} AND dc.observed_at < ${start()} ORDER BY dc.observed_at DESC LIMIT 1) lb`;
  const raw = (n: 0 | 1) =>
    `SELECT ${COLUMNS} FROM dns_counters dc WHERE ${mine('dc')} AND dc.observed_at >= ${c.value('timestamptz', (args, now) => ranges(args, now).raw[n][0])} ` +
    `AND dc.observed_at < ${c.value('timestamptz', (args, now) => ranges(args, now).raw[n][1])}`;
  const rollups = () =>
    `SELECT ${COLUMNS} FROM dns_counter_rollups dc WHERE ${mine('dc')} AND dc.bucket >= ${c.value('bigint', (args, now) => ranges(args, now).rollupFrom)} ` +
    `AND dc.bucket < ${c.value('bigint', (args, now) => ranges(args, now).rollupTo)}`;
  const readings =
    `${last('dns_counters', () => '')} UNION ALL ${last('dns_counter_rollups', () => ` AND dc.bucket <= ${startBucket()}`)} ` +
    `UNION ALL ${rollups()} UNION ALL ${raw(0)} UNION ALL ${raw(1)}`;
  const seconds = `${c.dialect.epochSeconds('i.observed_at')} - ${c.dialect.epochSeconds('i.p_at')}`;
  return (
    `(SELECT ${v}.uuid AS device_uuid, g.bucket, 1.0 * sum(g.requests) / sum(g.seconds) AS value FROM (SELECT ${bucket} AS bucket, ${seconds} AS seconds, i.requests ` +
    `FROM ${increments(readings)} i WHERE i.p_at IS NOT NULL AND i.observed_at >= ${start()}) g GROUP BY g.bucket HAVING sum(g.seconds) > 0)`
  );
}
