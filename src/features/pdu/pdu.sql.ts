import type { SqlContext } from '../../engine/read.model.js';
import { OUTLET_METRICS, OUTLET_TIERS, TEMPERATURE_TIERS } from '../../kernel/telemetry.js';
import type { OutletMetric } from '../../kernel/telemetry.js';
import { tieredSources, tierRows } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';

/**
 * The SQL of a PDU's series, as derived tables for the read model. Like
 * every series (metrics.sql.ts), each reads the rollups wholly inside the
 * window (the daily or hourly tier for a step of whole days or hours, the
 * finer tiers at the edges: tieredSources) and the raw samples of the two
 * edges (or the whole window when the step reads no rollups), and averages each bucket over
 * every sample in it: the sum of the values over their count.
 */

/** The hardware assigned to the virtual device row aliased `v` (NULL when none). */
export const hardwareOf = (v: string): string => `(SELECT ph.id FROM hardware_devices ph WHERE ph.virtual_device_id = ${v}.id)`;

/** The column of `metric` (`suffix`: '' raw, '_sum' or '_count' in a rollup) of the row aliased `t`, for the metric named in `p.metric`. */
const metricColumn = (p: string, t: string, suffix: string): string =>
  `CASE ${p}.metric ${OUTLET_METRICS.map((m) => `WHEN '${m}' THEN ${t}.${m}${suffix}`).join(' ')} END`;

/**
 * One outlet metric's series of the row aliased `p` (its hardware_device_id,
 * and the metric's name in `metric`): per outlet and bucket with readings,
 * their average; for the energy used, their sum (the energy the outlet
 * delivered between the readings that end in the bucket).
 */
export function outletSeries(c: SqlContext, p: string): string {
  const { tiers, raw } = tieredSources(c, OUTLET_TIERS);
  const fromRollups = (table: string, range: Source) =>
    `SELECT r.hardware_device_id, r.outlet_number, ${range.bucket('r.bucket')} AS bucket, ${metricColumn(p, 'r', '_sum')} AS s, ${metricColumn(p, 'r', '_count')} AS n ` +
    `FROM ${table} r WHERE r.hardware_device_id = ${p}.hardware_device_id AND r.bucket >= ${range.from()} AND r.bucket < ${range.to()}`;
  const fromSamples = (source: Source) =>
    `SELECT u.hardware_device_id, u.outlet_number, ${source.bucket('u.observed_at')} AS bucket, ${metricColumn(p, 'u', '')} AS s, 1 AS n ` +
    `FROM pdu_outlet_samples u WHERE u.hardware_device_id = ${p}.hardware_device_id AND u.observed_at >= ${source.from()} AND u.observed_at < ${source.to()} ` +
    `AND ${metricColumn(p, 'u', '')} IS NOT NULL`;
  return (
    `(SELECT g.hardware_device_id, g.outlet_number, g.bucket, CASE WHEN ${p}.metric = 'energy_used_kwh' THEN 1.0 * sum(g.s) ELSE 1.0 * sum(g.s) / sum(g.n) END AS value ` +
    `FROM (${tierRows(tiers, fromRollups)} UNION ALL ${fromSamples(raw[0])} UNION ALL ${fromSamples(raw[1])}) g ` +
    'GROUP BY g.hardware_device_id, g.outlet_number, g.bucket HAVING sum(g.n) > 0)'
  );
}

/** The temperature series of the row aliased `p` (its hardware_device_id): per bucket with samples, their average. */
export function temperatureSeries(c: SqlContext, p: string): string {
  const { tiers, raw } = tieredSources(c, TEMPERATURE_TIERS);
  const fromRollups = (table: string, range: Source) =>
    `SELECT ${range.bucket('r.bucket')} AS bucket, r.temperature_celsius_sum AS s, r.temperature_celsius_count AS n ` +
    `FROM ${table} r WHERE r.hardware_device_id = ${p}.hardware_device_id AND r.bucket >= ${range.from()} AND r.bucket < ${range.to()}`;
  const fromSamples = (source: Source) =>
    `SELECT ${source.bucket('u.observed_at')} AS bucket, u.temperature_celsius AS s, 1 AS n ` +
    `FROM device_temperature_samples u WHERE u.hardware_device_id = ${p}.hardware_device_id AND u.observed_at >= ${source.from()} AND u.observed_at < ${source.to()}`;
  return (
    `(SELECT g.bucket, 1.0 * sum(g.s) / sum(g.n) AS value FROM (${tierRows(tiers, fromRollups)} UNION ALL ${fromSamples(raw[0])} UNION ALL ${fromSamples(raw[1])}) g ` +
    'GROUP BY g.bucket HAVING sum(g.n) > 0)'
  );
}

/**
 * The row a series object is rendered over, below the virtual device row
 * aliased `v`: its hardware's id, the metric (for an outlet series), and the
 * smallest and largest value of the series (MetricsMetadata).
 */
export function seriesObject(c: SqlContext, v: string, series: (c: SqlContext, p: string) => string, metric?: OutletMetric): string {
  const x = c.alias();
  const metricColumn = metric === undefined ? '' : `, '${metric}' AS metric`;
  return (
    `(SELECT ${x}.*, (SELECT min(s.value) FROM ${series(c, x)} s) AS min_value, (SELECT max(s.value) FROM ${series(c, x)} s) AS max_value ` +
    `FROM (SELECT ${hardwareOf(v)} AS hardware_device_id${metricColumn}) ${x})`
  );
}

/**
 * True when every virtual device the list argument `argument` names is the
 * caller's company's (duplicates allowed): pdusMetrics answers null
 * (UNAUTHORIZED) otherwise, as for a missing one.
 */
export function allDevicesInCompany(c: SqlContext, argument: string): string {
  return (
    `(SELECT count(*) FROM virtual_devices av WHERE ${c.dialect.inList('av.uuid', c.arg(argument))} AND av.company_id = ${c.company()}) = ` +
    `(SELECT count(DISTINCT al.value) FROM ${c.dialect.listRows(c.arg(argument), 'al')})`
  );
}
