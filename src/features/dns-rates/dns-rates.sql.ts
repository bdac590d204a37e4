import type { SqlContext } from '../../engine/read.model.js';
import { DNS_COUNTER_TIERS } from '../../kernel/telemetry.js';
import { counterIncrements, itemOf, readingItem } from '../metrics/metrics.counters.js';
import { tierRows, tieredSources } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';
import { filterOf, seriesStart } from '../metrics/metrics.window.js';

/**
 * The SQL of controllerDNSRequestRates, as a derived table below a virtual
 * device row: the DNS request rate per bucket from the controller's
 * cumulative counter, across reboots, as portRates reads port counters.
 * Parameters are numbered in call order (SQLite's are positional).
 */

/** The counter. */
const NAMES = ['requests'];

/** The id of the hardware assigned to the virtual device aliased `v`. */
const hardwareOf = (v: string): string => `(SELECT dh.id FROM hardware_devices dh WHERE dh.virtual_device_id = ${v}.id)`;

/**
 * Per bucket of the root's filter, the DNS requests per second of the
 * controller aliased `v`: the growth of its counter between consecutive
 * readings whose later one falls in the bucket, divided by the seconds
 * between those readings (counterIncrements). The readings are metrics'
 * tiered sources (the rows of the coarsest rollup tier that serves the step
 * wholly inside the window, finer tiers and raw readings for the rest of
 * it) and the last reading before the window, from the raw readings, the
 * rollups and their tiers (one index lookup each).
 */
export function dnsRates(c: SqlContext, v: string): string {
  const start = () => c.value('timestamptz', (args, now) => seriesStart(filterOf(args), now));
  const startBucket = () => c.value('bigint', (args, now) => Math.floor(Date.parse(seriesStart(filterOf(args), now)) / 1000));
  // in text order: the bucket's step, the readings, the window's start
  const bucket = c.dialect.epochBucket('i.observed_at', c.arg('filter.stepSeconds'));
  const { tiers, raw } = tieredSources(c, DNS_COUNTER_TIERS);
  const mine = (t: string) => `${t}.hardware_device_id = ${hardwareOf(v)}`;
  const last = (table: string, bound: () => string) =>
    `SELECT * FROM (SELECT ${readingItem('dc', NAMES)} FROM ${table} dc WHERE ${mine('dc')}${bound()} AND dc.observed_at < ${start()} ORDER BY dc.observed_at DESC LIMIT 1) lb`;
  const fromRaw = (source: Source) =>
    `SELECT ${readingItem('dc', NAMES)} FROM dns_counters dc WHERE ${mine('dc')} AND dc.observed_at >= ${source.from()} AND dc.observed_at < ${source.to()}`;
  const fromRollups = (table: string, range: Source) =>
    `SELECT ${itemOf(table, 'dc', NAMES)} FROM ${table} dc WHERE ${mine('dc')} AND dc.bucket >= ${range.from()} AND dc.bucket < ${range.to()}`;
  const baselines = [last('dns_counters', () => ''), ...DNS_COUNTER_TIERS.map(({ table }) => last(table, () => ` AND dc.bucket <= ${startBucket()}`))];
  const readings = `${baselines.join(' UNION ALL ')} UNION ALL ${tierRows(tiers, fromRollups)} UNION ALL ${fromRaw(raw[0])} UNION ALL ${fromRaw(raw[1])}`;
  // a tier row's seconds run from the reading before it to its last; a first item with none, from its own first reading
  const seconds = `${c.dialect.epochSeconds('i.observed_at')} - ${c.dialect.epochSeconds('coalesce(i.p_at, i.first_at)')}`;
  return (
    `(SELECT ${v}.uuid AS device_uuid, g.bucket, 1.0 * sum(g.requests) / sum(g.seconds) AS value FROM (SELECT ${bucket} AS bucket, ${seconds} AS seconds, i.requests ` +
    `FROM ${counterIncrements(readings, NAMES)} i WHERE i.observed_at >= ${start()}) g GROUP BY g.bucket HAVING sum(g.seconds) > 0)`
  );
}
