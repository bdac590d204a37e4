import { CLIENT_BAND_TIERS, RADIO_TIERS, RADIO_UTILIZATION_METRICS, isCoarseTier } from '../../kernel/telemetry.js';
import { hardwareIdsOfNetwork } from '../../engine/read.model.js';
import type { SqlContext } from '../../engine/read.model.js';
import { tieredSources, tierRows } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';
import { TIME_FILTER_PATH } from './channel-utilization.sql.js';

/**
 * The SQL of channelUtilizationByClient, as a derived table below a network
 * row: per bucket, the utilization of the radios (access point and band) the
 * client was reported on in that bucket. Parameters are numbered in call
 * order (SQLite's are positional): each builder makes its text left to right.
 */

/** The utilizations the root answers: columns of radio_samples, prefixes of radio_rollups. */
const METRICS = RADIO_UTILIZATION_METRICS;

/**
 * The radio rows of the network `n`'s devices in the window: per bucket, radio
 * and row, each utilization's sum and count (a rollup's of a tier, or one raw sample's).
 */
function radioRows(c: SqlContext, n: string): string {
  const { tiers, raw } = tieredSources(c, RADIO_TIERS, TIME_FILTER_PATH);
  const sums = (t: string, fromRollup: boolean) =>
    METRICS.map((m) =>
      fromRollup ? `${t}.${m}_sum AS ${m}_s, ${t}.${m}_count AS ${m}_n` : `coalesce(${t}.${m}, 0) AS ${m}_s, CASE WHEN ${t}.${m} IS NULL THEN 0 ELSE 1 END AS ${m}_n`,
    ).join(', ');
  const ofNetwork = (t: string, prefix: string) => `${t}.hardware_device_id IN ${hardwareIdsOfNetwork(prefix, n)}`;
  const fromRollups = (table: string, range: Source) =>
    `SELECT ${range.bucket('rr.bucket')} AS bucket, rr.hardware_device_id, rr.radio_band, ${sums('rr', true)} FROM ${table} rr ` +
    `WHERE ${ofNetwork('rr', 'cr')} AND rr.bucket >= ${range.from()} AND rr.bucket < ${range.to()}`;
  const fromSamples = (source: Source, prefix: string) =>
    `SELECT ${source.bucket('rs.observed_at')} AS bucket, rs.hardware_device_id, rs.radio_band, ${sums('rs', false)} FROM radio_samples rs ` +
    `WHERE ${ofNetwork('rs', prefix)} AND rs.observed_at >= ${source.from()} AND rs.observed_at < ${source.to()}`;
  return `(${tierRows(tiers, fromRollups)} UNION ALL ${fromSamples(raw[0], 'cs')} UNION ALL ${fromSamples(raw[1], 'ct')})`;
}

/**
 * The radios the client `macAddress` was reported on in the network `n`,
 * per bucket: its wireless samples that name a band (raw ones, and the
 * 5-minute client metric rollups by their last sample's band), and the rows
 * of the hourly and daily band tiers, which hold only those (migration 0044).
 */
function clientRadios(c: SqlContext, n: string): string {
  const { tiers, raw } = tieredSources(c, CLIENT_BAND_TIERS, TIME_FILTER_PATH);
  const client = (t: string, coarse = false) =>
    `${t}.network_id = ${n}.id AND ${t}.mac_address = ${c.arg('macAddress')}${coarse ? '' : ` AND ${t}.is_wireless AND ${t}.radio_band > ''`}`;
  const fromRollups = (table: string, range: Source) =>
    `SELECT ${range.bucket('cm.bucket')} AS bucket, cm.hardware_device_id, cm.radio_band FROM ${table} cm ` +
    `WHERE ${client('cm', isCoarseTier(table))} AND cm.bucket >= ${range.from()} AND cm.bucket < ${range.to()}`;
  const fromSamples = (source: Source) =>
    `SELECT ${source.bucket('co.observed_at')} AS bucket, co.hardware_device_id, co.radio_band FROM client_observations co ` +
    `WHERE ${client('co')} AND co.observed_at >= ${source.from()} AND co.observed_at < ${source.to()}`;
  return `(SELECT DISTINCT q.bucket, q.hardware_device_id, q.radio_band FROM (${tierRows(tiers, fromRollups)} UNION ALL ${fromSamples(raw[0])} UNION ALL ${fromSamples(raw[1])}) q)`;
}

/**
 * Per bucket of the filter, each utilization's average over the samples of
 * the radios the client was on in that bucket (every sample weighing alike,
 * as channelUtilizationByAP averages one radio); only buckets with a total
 * utilization. Below the network row `n` (docs/metrics.md).
 */
export function clientChannelSeries(c: SqlContext, n: string): string {
  const averages = METRICS.map((m) => `CASE WHEN sum(u.${m}_n) > 0 THEN 1.0 * sum(u.${m}_s) / sum(u.${m}_n) END AS ${m}`).join(', ');
  // in text order: the radios' rows, then the client's radios
  const radios = radioRows(c, n);
  const client = clientRadios(c, n);
  return (
    `(SELECT u.bucket, ${averages} FROM ${radios} u JOIN ${client} p ON p.bucket = u.bucket AND p.hardware_device_id = u.hardware_device_id ` +
    'AND p.radio_band = u.radio_band GROUP BY u.bucket HAVING sum(u.total_utilization_n) > 0)'
  );
}
