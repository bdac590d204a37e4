import type { SqlContext } from '../../engine/read.model.js';
import { filterOf, seriesRanges } from '../metrics/metrics.window.js';

/**
 * The SQL of the port counter roots, as derived tables below a virtual
 * device row: totals over a lookback (switchPortStats, controllerPortStats)
 * and rates per bucket (switchPortMetricsRate, controllerPortMetricsRate).
 * Parameters are numbered in call order (SQLite's are positional): each
 * builder makes its text left to right, calling a parameter where it goes.
 */

/** A port's six cumulative counters: the columns of port_counters and port_counter_rollups, and the field each answers as. */
export const COUNTERS = [
  ['rx_bytes', 'totalRxBytes'],
  ['tx_bytes', 'totalTxBytes'],
  ['rx_packets', 'totalRxPackets'],
  ['tx_packets', 'totalTxPackets'],
  ['rx_errors', 'errorRxPackets'],
  ['tx_errors', 'errorTxPackets'],
] as const;

const COLUMNS = `pr.port_number, pr.observed_at, pr.uptime_seconds, ${COUNTERS.map(([column]) => `pr.${column}`).join(', ')}`;

/** The id of the hardware assigned to the virtual device aliased `v`. */
const hardwareOf = (v: string): string => `(SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id)`;

/** Only the port of the root's portNumber argument, when given, for the row aliased `t`. */
const portFilter = (c: SqlContext, t: string): string => `(${c.arg('portNumber')} IS NULL OR ${t}.port_number = ${c.arg('portNumber')})`;

/**
 * The readings `w` (COLUMNS) with, per port in time order, the previous
 * reading's time (`p_at`) and the growth since it of each counter: a
 * reading after a reboot (any counter lower than the previous reading's,
 * or a lower uptime) counts whole, since counters restart from zero; the
 * first reading of a port has no previous one (`p_at` NULL, growth 0).
 */
function increments(readings: string): string {
  const lags = COUNTERS.map(([column]) => `lag(w.${column}) OVER o AS p_${column}`).join(', ');
  const rebooted = [...COUNTERS.map(([column]) => `x.${column} < x.p_${column}`), 'x.uptime_seconds < x.p_uptime'].join(' OR ');
  const growth = COUNTERS.map(
    ([column]) => `CASE WHEN x.p_${column} IS NULL THEN 0 WHEN ${rebooted} THEN x.${column} ELSE x.${column} - x.p_${column} END AS ${column}`,
  ).join(', ');
  return (
    `(SELECT x.port_number, x.observed_at, x.p_at, ${growth} FROM (SELECT w.*, lag(w.observed_at) OVER o AS p_at, ` +
    `lag(w.uptime_seconds) OVER o AS p_uptime, ${lags} FROM (${readings}) w WINDOW o AS (PARTITION BY w.port_number ORDER BY w.observed_at)) x)`
  );
}

/** The start of switchPortStats' window: lookbackHours before the request. */
const windowStart = (c: SqlContext): string => c.value('timestamptz', (args, now) => new Date(now.getTime() - (args.lookbackHours as number) * 3_600_000));

/** The start of switchPortStats' window in seconds since the epoch, rounded down (to compare with rollup buckets). */
const windowStartSeconds = (c: SqlContext): string =>
  c.value('bigint', (args, now) => Math.floor((now.getTime() - (args.lookbackHours as number) * 3_600_000) / 1000));

/**
 * The port numbers `n` of which the hardware `d.id` has a reading in
 * `table`, each found by one index lookup (hardware, port, ...): the next
 * port above the last one found, until there is none.
 */
const portsOf = (table: string, name: string): string =>
  `${name}(id, n) AS (SELECT d.id, (SELECT min(q.port_number) FROM ${table} q WHERE q.hardware_device_id = d.id) FROM d ` +
  `UNION ALL SELECT ${name}.id, (SELECT min(q.port_number) FROM ${table} q WHERE q.hardware_device_id = ${name}.id AND q.port_number > ${name}.n) ` +
  `FROM ${name} WHERE ${name}.n IS NOT NULL)`;

/**
 * Per port of the hardware `d` with readings (only portNumber when given),
 * where its readings start: `raw_from`, its last raw reading before the
 * window (else the window's start); `rollup_from`, the bucket of its last
 * rollup before the window (else 300 s before the window's start: its
 * rollups were then all observed inside the window); and
 * `raw_oldest`, its oldest raw reading, before which rollups count. Each is
 * one index lookup, the latest by the index's last column.
 */
function totalPorts(c: SqlContext): string {
  const last = (table: string, column: string, bound: string, order: string) =>
    `(SELECT pb.${column} FROM ${table} pb WHERE pb.hardware_device_id = d.id AND pb.port_number = p.port_number${bound} ORDER BY pb.${column}${order} LIMIT 1)`;
  // in text order: the window's start (raw), its start in seconds and again (rollups)
  return (
    `SELECT d.id AS hardware_device_id, p.port_number, ` +
    `coalesce(${last('port_counters', 'observed_at', ` AND pb.observed_at < ${windowStart(c)}`, ' DESC')}, ${windowStart(c)}) AS raw_from, ` +
    `coalesce(${last('port_counter_rollups', 'bucket', ` AND pb.bucket <= ${windowStartSeconds(c)} AND pb.observed_at < ${windowStart(c)}`, ' DESC')}, ` +
    `${windowStartSeconds(c)} - 300) AS rollup_from, ${last('port_counters', 'observed_at', '', '')} AS raw_oldest ` +
    `FROM d CROSS JOIN (SELECT rp.n AS port_number FROM rp WHERE rp.n IS NOT NULL UNION SELECT pp.n FROM pp WHERE pp.n IS NOT NULL) p WHERE ${portFilter(c, 'p')}`
  );
}

/**
 * Per port with a reading inside the window, the growth of each counter: the
 * sum of the increments between consecutive readings whose later one is
 * inside the window. The readings are every raw reading kept
 * (TELEMETRY_RAW_RETENTION_HOURS) and, before the port's oldest raw
 * reading, the last reading of each 5-minute bucket, each from the port's
 * last reading before the window on. Each port's readings are read in their
 * own index range, driven by the ports (`CROSS JOIN`, whose order SQLite
 * keeps): the ports come from the readings themselves (one index lookup per
 * port), so a port the latest report no longer lists still counts.
 */
export function portTotals(c: SqlContext, v: string): string {
  const sums = COUNTERS.map(([column]) => `sum(i.${column}) AS ${column}`).join(', ');
  // b is computed once (MATERIALIZED), then read by both sources
  const ports =
    `WITH RECURSIVE d(id) AS (SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id), ` +
    `${portsOf('port_counters', 'rp')}, ${portsOf('port_counter_rollups', 'pp')}, b AS MATERIALIZED (${totalPorts(c)}) `;
  const same = 'pr.hardware_device_id = b.hardware_device_id AND pr.port_number = b.port_number';
  const raw = `SELECT ${COLUMNS} FROM b CROSS JOIN port_counters pr WHERE ${same} AND pr.observed_at >= b.raw_from AND pr.observed_at < ${c.now()}`;
  // a rollup after the baseline's bucket was observed after it; with no baseline, every rollup was observed in the window
  const rollups =
    `SELECT ${COLUMNS} FROM b CROSS JOIN port_counter_rollups pr WHERE ${same} AND pr.bucket >= b.rollup_from ` +
    `AND pr.observed_at < ${c.now()} AND (b.raw_oldest IS NULL OR pr.observed_at < b.raw_oldest)`;
  return `(${ports}SELECT i.port_number, ${sums} FROM ${increments(`${raw} UNION ALL ${rollups}`)} i WHERE i.observed_at >= ${windowStart(c)} GROUP BY i.port_number)`;
}

/**
 * The ports a rate series reads, as a condition on device_ports `bp`: those
 * the latest report of the hardware of the virtual device aliased `v` lists,
 * only portNumber when given. Each source joins its readings to them,
 * so it reads one index range per port (hardware, port, time) rather than
 * every reading the device ever sent: `device_ports bp CROSS JOIN <readings>`,
 * as SQLite keeps a CROSS JOIN's order (PostgreSQL plans it as any join).
 */
const ratePorts = (c: SqlContext, v: string): string => `bp.hardware_device_id = ${hardwareOf(v)} AND ${portFilter(c, 'bp')}`;

/**
 * Each port's last reading before the rate window's start, from the raw
 * readings and from the 5-minute rollups (whichever is later precedes the
 * window's first reading): one index lookup per port.
 */
function baselines(c: SqlContext, v: string, start: () => string): string {
  // the latest by the index's last column, so each lookup reads backwards from the window's start and stops at the
  // first row that qualifies; a rollup read before the start has its bucket before it too
  const startBucket = () => c.value('bigint', (args, now) => Math.floor(Date.parse(seriesRanges(filterOf(args), now).raw[0][0]) / 1000));
  const last = (table: string, column: string, bound: () => string) =>
    `SELECT ${COLUMNS} FROM (SELECT bp.hardware_device_id, bp.port_number, (SELECT pb.${column} FROM ${table} pb ` +
    `WHERE pb.hardware_device_id = bp.hardware_device_id AND pb.port_number = bp.port_number${bound()} AND pb.observed_at < ${start()} ` +
    `ORDER BY pb.${column} DESC LIMIT 1) AS last FROM device_ports bp WHERE ${ratePorts(c, v)}) b ` +
    `CROSS JOIN ${table} pr WHERE pr.hardware_device_id = b.hardware_device_id AND pr.port_number = b.port_number AND pr.${column} = b.last`;
  return `${last('port_counters', 'observed_at', () => '')} UNION ALL ${last('port_counter_rollups', 'bucket', () => ` AND pb.bucket <= ${startBucket()}`)}`;
}

/**
 * Per port and bucket of the root's filter, the rate of each counter in
 * units per second: the growth between consecutive readings whose later one
 * falls in the bucket (as portTotals counts it, reboots included), divided
 * by the seconds between those readings. The readings are those of
 * metrics' sources (seriesRanges): the last reading of each 5-minute rollup
 * wholly inside the window, raw readings for the rest of it, and each port's
 * last reading before the window; a bucket holds a rate where some pair
 * ends in it. Rollups keep a bucket's last reading, so a step that reads
 * them sums the same growth over the same seconds as the raw readings would,
 * unless a port rebooted inside a 5-minute bucket (its growth before the
 * reboot is lost, as in switchPortStats).
 */
export function portRates(c: SqlContext, v: string): string {
  const ranges = (args: Parameters<typeof filterOf>[0], now: Date) => seriesRanges(filterOf(args), now);
  const start = () => c.value('timestamptz', (args, now) => ranges(args, now).raw[0][0]);
  // in text order: the bucket's step, the readings, the window's start
  const bucket = c.dialect.epochBucket('i.observed_at', c.arg('filter.stepSeconds'));
  const of = (table: string) =>
    `SELECT ${COLUMNS} FROM device_ports bp CROSS JOIN ${table} pr WHERE ${ratePorts(c, v)} ` +
    'AND pr.hardware_device_id = bp.hardware_device_id AND pr.port_number = bp.port_number';
  const raw = (n: 0 | 1) =>
    `${of('port_counters')} AND pr.observed_at >= ${c.value('timestamptz', (args, now) => ranges(args, now).raw[n][0])} ` +
    `AND pr.observed_at < ${c.value('timestamptz', (args, now) => ranges(args, now).raw[n][1])}`;
  const rollups = () =>
    `${of('port_counter_rollups')} AND pr.bucket >= ${c.value('bigint', (args, now) => ranges(args, now).rollupFrom)} ` +
    `AND pr.bucket < ${c.value('bigint', (args, now) => ranges(args, now).rollupTo)}`;
  const readings = `${baselines(c, v, start)} UNION ALL ${rollups()} UNION ALL ${raw(0)} UNION ALL ${raw(1)}`;
  const seconds = `${c.dialect.epochSeconds('i.observed_at')} - ${c.dialect.epochSeconds('i.p_at')}`;
  const rates = COUNTERS.map(([column]) => `1.0 * sum(g.${column}) / sum(g.seconds) AS ${column}`).join(', ');
  const growth = COUNTERS.map(([column]) => `i.${column}`).join(', ');
  return (
    `(SELECT g.port_number, g.bucket, ${rates} FROM (SELECT i.port_number, ${bucket} AS bucket, ${seconds} AS seconds, ${growth} ` +
    `FROM ${increments(readings)} i WHERE i.p_at IS NOT NULL AND i.observed_at >= ${start()}) g GROUP BY g.port_number, g.bucket HAVING sum(g.seconds) > 0)`
  );
}
