import { RADIO_TIERS, RADIO_UTILIZATION_METRICS } from '../../kernel/telemetry.js';
import { RADIO_BANDS } from '../../ingest/report.limits.js';
import type { SqlContext } from '../../engine/read.model.js';
import { tieredSources, tierRows } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';
import { filterAt, seriesRanges } from '../metrics/metrics.window.js';

/**
 * The SQL of the channel utilization roots, as derived tables below a
 * network row: the radios (access point and band) with utilization in the
 * window, and each radio's series. Parameters are numbered in call order
 * (SQLite's are positional): each builder makes its text left to right.
 */

/** Where Meter's ChannelUtilizationTimeseriesFilterInput holds its MetricsFilterInput. */
export const TIME_FILTER_PATH = 'filter.timeFilter';

/**
 * Per bucket of the filter, each utilization's weighted average over the
 * radio `e` (its hardware_device_id and radio_band): the sum of its samples
 * over their count, from the rollups wholly inside the window (the daily or
 * hourly tier when the step is whole days or hours, then the finer ones at
 * the edges: metrics' tieredSources) and the raw samples for the rest of
 * it; a metric without
 * samples in the bucket is NULL. Only buckets with a total utilization.
 */
export function radioSeries(c: SqlContext, e: string): string {
  const { tiers, raw } = tieredSources(c, RADIO_TIERS, TIME_FILTER_PATH);
  const radio = (t: string) => `${t}.hardware_device_id = ${e}.hardware_device_id AND ${t}.radio_band = ${e}.radio_band`;
  const fromRollups = (table: string, range: Source) =>
    `SELECT ${range.bucket('r.bucket')} AS bucket, ` +
    RADIO_UTILIZATION_METRICS.map((m) => `r.${m}_sum AS ${m}_s, r.${m}_count AS ${m}_n`).join(', ') +
    ` FROM ${table} r WHERE ${radio('r')} AND r.bucket >= ${range.from()} AND r.bucket < ${range.to()}`;
  const fromSamples = (source: Source) =>
    `SELECT ${source.bucket('u.observed_at')} AS bucket, ` +
    RADIO_UTILIZATION_METRICS.map((m) => `coalesce(u.${m}, 0) AS ${m}_s, CASE WHEN u.${m} IS NULL THEN 0 ELSE 1 END AS ${m}_n`).join(', ') +
    ` FROM radio_samples u WHERE ${radio('u')} AND u.observed_at >= ${source.from()} AND u.observed_at < ${source.to()}`;
  const averages = RADIO_UTILIZATION_METRICS.map((m) => `CASE WHEN sum(g.${m}_n) > 0 THEN 1.0 * sum(g.${m}_s) / sum(g.${m}_n) END AS ${m}`).join(', ');
  return (
    `(SELECT g.bucket, ${averages} FROM (${tierRows(tiers, fromRollups)} UNION ALL ${fromSamples(raw[0])} UNION ALL ${fromSamples(raw[1])}) g ` +
    'GROUP BY g.bucket HAVING sum(g.total_utilization_n) > 0)'
  );
}

/** The bands as rows (`band`), for every radio of a device. */
const BANDS = `(${RADIO_BANDS.map((band) => `SELECT '${band}' AS band`).join(' UNION ALL ')})`;

/**
 * The radios of the network row aliased `n` with utilization in the window:
 * each device of the network with hardware, by band (only `band` when
 * given; only the device apVirtualDeviceUUID names when `oneDevice`), those
 * whose series has a bucket.
 */
export function networkRadios(c: SqlContext, n: string, oneDevice: boolean): string {
  const e = c.alias();
  // in text order: the device, the band, then the series
  const device = oneDevice ? ` AND v.uuid = ${c.arg('apVirtualDeviceUUID')}` : '';
  // coalesce gives the parameter its type on PostgreSQL
  const band = `b.band = coalesce(${c.arg('band')}, b.band)`;
  // each device's hardware looked up by its unique virtual_device_id: as a join, PostgreSQL's generic plan
  // without statistics scanned every hardware device (as hardwareIdsOfNetwork says)
  const devices =
    `(SELECT v.uuid AS virtual_device_uuid, (SELECT h.id FROM hardware_devices h WHERE h.virtual_device_id = v.id) AS hardware_device_id ` +
    `FROM virtual_devices v WHERE v.network_id = ${n}.id${device})`;
  return (
    `(SELECT ${e}.* FROM (SELECT dv.hardware_device_id, dv.virtual_device_uuid, b.band AS radio_band FROM ${devices} dv CROSS JOIN ${BANDS} b ` +
    `WHERE dv.hardware_device_id IS NOT NULL AND ${band}) ${e} WHERE EXISTS (SELECT 1 FROM ${radioSeries(c, e)} s))`
  );
}

/**
 * A column of the radio `e`'s latest sample before the window's end (raw
 * samples, kept TELEMETRY_RAW_RETENTION_HOURS): its channel, width, power
 * or noise floor as the radio last reported it; NULL when none is kept.
 */
export function latestSample(c: SqlContext, e: string, column: string): string {
  const end = c.value('timestamptz', (args, now) => seriesRanges(filterAt(args, TIME_FILTER_PATH), now).raw[1][1]);
  return (
    `(SELECT ls.${column} FROM radio_samples ls WHERE ls.hardware_device_id = ${e}.hardware_device_id AND ls.radio_band = ${e}.radio_band ` +
    `AND ls.observed_at < ${end} ORDER BY ls.observed_at DESC LIMIT 1)`
  );
}
