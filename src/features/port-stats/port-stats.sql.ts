import type { SqlContext } from '../../engine/read.model.js';
import { DAILY_SECONDS, HOURLY_SECONDS, PORT_COUNTER_TIERS } from '../../kernel/telemetry.js';
import { counterIncrements, itemOf, readingItem, tierItem } from '../metrics/metrics.counters.js';
import { tierRows, tieredSources } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';
import { filterOf, seriesStart } from '../metrics/metrics.window.js';

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

/** The counters' column names. */
const NAMES = COUNTERS.map(([column]) => column);

/** A port's reading aliased `pr` as an item of counterIncrements, with its port. */
const COLUMNS = `pr.port_number, ${readingItem('pr', NAMES)}`;

/** The id of the hardware assigned to the virtual device aliased `v`. */
const hardwareOf = (v: string): string => `(SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id)`;

/** Only the port of the root's portNumber argument, when given, for the row aliased `t`. */
const portFilter = (c: SqlContext, t: string): string => `(${c.arg('portNumber')} IS NULL OR ${t}.port_number = ${c.arg('portNumber')})`;

/** Per port in time order, the growth of each counter over the items `readings` (see counterIncrements). */
const increments = (readings: string): string => counterIncrements(readings, NAMES, 'port_number');

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

/** The start of the first whole bucket of `seconds` at or after switchPortStats' window's start, in seconds since the epoch. */
const firstWhole = (c: SqlContext, seconds: number): string =>
  `CAST(${c.value('bigint', (args, now) => Math.ceil((now.getTime() - (args.lookbackHours as number) * 3_600_000) / 1000 / seconds) * seconds)} AS bigint)`;

/**
 * Per port with a reading inside the window, the growth of each counter: the
 * sum of the increments between consecutive readings whose later one is
 * inside the window. The readings are every raw reading kept
 * (TELEMETRY_RAW_RETENTION_HOURS) and, before the port's oldest raw
 * reading, the last reading of each 5-minute bucket, each from the port's
 * last reading before the window on. The whole days, then the whole hours,
 * from the window's start to the last whole one before the port's oldest
 * raw reading (or the request) come from the daily and hourly tiers, whose
 * rows stand for the 5-minute readings inside them (COUNTER_TIERED), so the
 * sum is the same. Each port's readings are read in their own index ranges,
 * driven by the ports (`CROSS JOIN`, whose order SQLite keeps): the ports
 * come from the readings themselves (one index lookup per port), so a port
 * the latest report no longer lists still counts.
 */
export function portTotals(c: SqlContext, v: string): string {
  const d = c.dialect;
  const sums = COUNTERS.map(([column]) => `sum(i.${column}) AS ${column}`).join(', ');
  // b is computed once (MATERIALIZED), then read by every source; e adds, per port, where the tiers may read: from the
  // first whole hour (hf) and day (hf) in the window to the last whole ones (h_to, d_to) before its 5-minute rows end
  // (x_end: its oldest raw reading, or the request). Each parameter appears once (SQLite's are positional).
  const bucketsOf = () => `SELECT b.*, ${c.now()} AS at_now, ${firstWhole(c, HOURLY_SECONDS)} AS hf, ${firstWhole(c, DAILY_SECONDS)} AS df FROM b`;
  const endOf = () => `SELECT f.*, CASE WHEN f.raw_oldest IS NULL OR f.raw_oldest > f.at_now THEN f.at_now ELSE f.raw_oldest END AS x_end FROM (${bucketsOf()}) f`;
  const ports =
    `WITH RECURSIVE d(id) AS (SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id), ` +
    `${portsOf('port_counters', 'rp')}, ${portsOf('port_counter_rollups', 'pp')}, b AS MATERIALIZED (${totalPorts(c)}), ` +
    `e AS MATERIALIZED (SELECT g.*, ${d.epochBucket('g.x_end', String(HOURLY_SECONDS))} AS h_to, ${d.epochBucket('g.x_end', String(DAILY_SECONDS))} AS d_to FROM (${endOf()}) g) `;
  const same = 'pr.hardware_device_id = e.hardware_device_id AND pr.port_number = e.port_number';
  // the tiers' ranges: days [df, dt), hours [hf, ht) but the days'; each empty when its end is not past its start
  const ht = d.greatest('e.h_to', 'e.hf');
  const dt = d.greatest('e.d_to', 'e.df');
  const raw = `SELECT ${COLUMNS} FROM e CROSS JOIN port_counters pr WHERE ${same} AND pr.observed_at >= e.raw_from AND pr.observed_at < ${c.now()}`;
  // a rollup after the baseline's bucket was observed after it; with no baseline, every rollup was observed in the window
  const rollups = (range: string) =>
    `SELECT ${COLUMNS} FROM e CROSS JOIN port_counter_rollups pr WHERE ${same} AND ${range} ` +
    `AND pr.observed_at < ${c.now()} AND (e.raw_oldest IS NULL OR pr.observed_at < e.raw_oldest)`;
  const tier = (table: string, range: string) => `SELECT pr.port_number, ${tierItem('pr', NAMES)} FROM e CROSS JOIN ${table} pr WHERE ${same} AND ${range}`;
  const readings = [
    raw,
    rollups('pr.bucket >= e.rollup_from AND pr.bucket < e.hf'),
    tier('port_counter_rollups_hourly', `pr.bucket >= e.hf AND pr.bucket < ${d.least('e.df', ht)}`),
    tier('port_counter_rollups_daily', `pr.bucket >= e.df AND pr.bucket < ${dt}`),
    tier('port_counter_rollups_hourly', `pr.bucket >= ${dt} AND pr.bucket < ${ht}`),
    rollups(`pr.bucket >= ${ht}`),
  ].join(' UNION ALL ');
  return `(${ports}SELECT i.port_number, ${sums} FROM ${increments(readings)} i WHERE i.observed_at >= ${windowStart(c)} GROUP BY i.port_number)`;
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
 * readings, the 5-minute rollups and their tiers (a tier row's last reading;
 * whichever is latest precedes the window's first reading): one index
 * lookup per port and table.
 */
function baselines(c: SqlContext, v: string, start: () => string): string {
  // the latest by the index's last column, so each lookup reads backwards from the window's start and stops at the
  // first row that qualifies; a rollup read before the start has its bucket before it too
  const startBucket = () => c.value('bigint', (args, now) => Math.floor(Date.parse(seriesStart(filterOf(args), now)) / 1000));
  const last = (table: string, column: string, bound: () => string) =>
    `SELECT ${COLUMNS} FROM (SELECT bp.hardware_device_id, bp.port_number, (SELECT pb.${column} FROM ${table} pb ` +
    `WHERE pb.hardware_device_id = bp.hardware_device_id AND pb.port_number = bp.port_number${bound()} AND pb.observed_at < ${start()} ` +
    `ORDER BY pb.${column} DESC LIMIT 1) AS last FROM device_ports bp WHERE ${ratePorts(c, v)}) b ` +
    `CROSS JOIN ${table} pr WHERE pr.hardware_device_id = b.hardware_device_id AND pr.port_number = b.port_number AND pr.${column} = b.last`;
  // in text order (the raw readings' first)
  return [last('port_counters', 'observed_at', () => ''), ...PORT_COUNTER_TIERS.map(({ table }) => last(table, 'bucket', () => ` AND pb.bucket <= ${startBucket()}`))].join(' UNION ALL ');
}

/**
 * Per port and bucket of the root's filter, the rate of each counter in
 * units per second: the growth between consecutive readings whose later one
 * falls in the bucket (as portTotals counts it, reboots included), divided
 * by the seconds between those readings. The readings are those of
 * metrics' tiered sources (tieredRanges): the rows of the coarsest rollup
 * tier that serves the step wholly inside the window (an hourly or daily
 * row standing for the 5-minute readings of its bucket, COUNTER_TIERED),
 * finer tiers and raw readings for the rest of it, and each port's last
 * reading before the window; a bucket holds a rate where some pair ends in
 * it. Rollups keep a bucket's last reading, so a step that reads them sums
 * the same growth over the same seconds as the raw readings would, unless a
 * port rebooted inside a 5-minute bucket (its growth before the reboot is
 * lost, as in switchPortStats); every tier answers as the 5-minute rows do.
 */
export function portRates(c: SqlContext, v: string): string {
  const start = () => c.value('timestamptz', (args, now) => seriesStart(filterOf(args), now));
  // in text order: the bucket's step, the readings, the window's start
  const bucket = c.dialect.epochBucket('i.observed_at', c.arg('filter.stepSeconds'));
  const { tiers, raw } = tieredSources(c, PORT_COUNTER_TIERS);
  const of = (table: string) =>
    `SELECT pr.port_number, ${itemOf(table, 'pr', NAMES)} FROM device_ports bp CROSS JOIN ${table} pr WHERE ${ratePorts(c, v)} ` +
    'AND pr.hardware_device_id = bp.hardware_device_id AND pr.port_number = bp.port_number';
  const fromRaw = (source: Source) => `${of('port_counters')} AND pr.observed_at >= ${source.from()} AND pr.observed_at < ${source.to()}`;
  const fromRollups = (table: string, range: Source) => `${of(table)} AND pr.bucket >= ${range.from()} AND pr.bucket < ${range.to()}`;
  const readings = `${baselines(c, v, start)} UNION ALL ${tierRows(tiers, fromRollups)} UNION ALL ${fromRaw(raw[0])} UNION ALL ${fromRaw(raw[1])}`;
  // a tier row's seconds run from the reading before it to its last; a first item with none, from its own first reading
  const seconds = `${c.dialect.epochSeconds('i.observed_at')} - ${c.dialect.epochSeconds('coalesce(i.p_at, i.first_at)')}`;
  const rates = COUNTERS.map(([column]) => `1.0 * sum(g.${column}) / sum(g.seconds) AS ${column}`).join(', ');
  const growth = COUNTERS.map(([column]) => `i.${column}`).join(', ');
  return (
    `(SELECT g.port_number, g.bucket, ${rates} FROM (SELECT i.port_number, ${bucket} AS bucket, ${seconds} AS seconds, ${growth} ` +
    `FROM ${increments(readings)} i WHERE i.observed_at >= ${start()}) g GROUP BY g.port_number, g.bucket HAVING sum(g.seconds) > 0)`
  );
}
