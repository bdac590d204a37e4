import { PRESENCE_TIERS, REPORT_COUNT_TIERS, UPLINK_TIERS } from '../../kernel/telemetry.js';
import type { RollupTier, UplinkMetric } from '../../kernel/telemetry.js';
import type { ArgumentValues, SqlContext } from '../../engine/read.model.js';
import { filterAt, seriesRanges, tieredRanges } from './metrics.window.js';

/**
 * The SQL of the metrics series, as derived tables for the read model. A
 * series reads three sources at once (UNION ALL): the 5-minute rollups
 * wholly inside the window, and two ranges of raw samples (the partial
 * 5 minutes at each edge, or the whole window when the step does not read
 * rollups); an unused source gets an empty range. So one statement text
 * serves every filter, and only data inside the window counts.
 *
 * Parameters are numbered in the order the builders are called (SQLite's
 * are positional): every function here builds its text left to right and
 * calls a parameter where its placeholder goes, never reusing one.
 */

/** One source of a series: its bucket expression for a column, and its range's bounds as new parameters. */
export interface Source {
  bucket(column: string): string;
  from(): string;
  to(): string;
}

/**
 * The sources of a series: the rollup buckets (epoch seconds) and the two
 * raw ranges (timestamps), for the MetricsFilterInput at `path` of the
 * root's arguments (`filter`, or `filter.timeFilter` for Meter's nested filters).
 */
export function sources(c: SqlContext, path = 'filter'): { readonly rollup: Source; readonly raw: readonly [Source, Source] } {
  const step = () => c.arg(`${path}.stepSeconds`);
  const ranges = (args: ArgumentValues, now: Date) => seriesRanges(filterAt(args, path), now);
  const raw = (i: 0 | 1): Source => ({
    bucket: (column) => c.dialect.epochBucket(column, step()),
    from: () => c.value('timestamptz', (args, now) => ranges(args, now).raw[i][0]),
    to: () => c.value('timestamptz', (args, now) => ranges(args, now).raw[i][1]),
  });
  return {
    rollup: {
      // a bucket's start is a multiple of 300 and positive: b - b % step is its step bucket
      bucket: (column) => `(${column} - ${column} % ${step()})`,
      from: () => c.value('bigint', (args, now) => ranges(args, now).rollupFrom),
      to: () => c.value('bigint', (args, now) => ranges(args, now).rollupTo),
    },
    raw: [raw(0), raw(1)],
  };
}

/** One tier of a tiered series: its table, and its two ranges of buckets as sources. */
export interface TierSources {
  readonly table: string;
  readonly ranges: readonly [Source, Source];
}

/**
 * The sources of a tiered series (see tieredRanges): for each of `tiers`
 * (coarsest first) its table and two ranges of buckets, and the two raw
 * ranges. A tier's bucket start is a multiple of its width, which divides the
 * step whenever the tier's ranges are not empty.
 */
export function tieredSources(c: SqlContext, tiers: readonly RollupTier[], path = 'filter'): { readonly tiers: readonly TierSources[]; readonly raw: readonly [Source, Source] } {
  const step = () => c.arg(`${path}.stepSeconds`);
  const seconds = tiers.map((t) => t.seconds);
  const ranges = (args: ArgumentValues, now: Date) => tieredRanges(filterAt(args, path), now, seconds);
  const raw = (i: 0 | 1): Source => ({
    bucket: (column) => c.dialect.epochBucket(column, step()),
    from: () => c.value('timestamptz', (args, now) => ranges(args, now).raw[i][0]),
    to: () => c.value('timestamptz', (args, now) => ranges(args, now).raw[i][1]),
  });
  const range = (tier: number, i: 0 | 1): Source => ({
    bucket: (column) => `(${column} - ${column} % ${step()})`,
    from: () => c.value('bigint', (args, now) => ranges(args, now).tiers[tier]?.[i][0] ?? 0),
    to: () => c.value('bigint', (args, now) => ranges(args, now).tiers[tier]?.[i][1] ?? 0),
  });
  return { tiers: tiers.map((t, tier) => ({ table: t.table, ranges: [range(tier, 0), range(tier, 1)] as const })), raw: [raw(0), raw(1)] };
}

/**
 * The rollup rows of a tiered series, as one UNION ALL: `fromRollups` over
 * each range of each tier (coarsest first, as tieredSources gives them).
 * Parameters in text order (the raw ranges' rows follow this text).
 */
export function tierRows(tiers: readonly TierSources[], fromRollups: (table: string, range: Source) => string): string {
  return tiers.flatMap((t) => t.ranges.map((range) => fromRollups(t.table, range))).join(' UNION ALL ');
}

/** The UUIDs networkUUID and networkUUIDs name, distinct; empty when neither names one. */
export const namedNetworks = (args: ArgumentValues): string[] => [
  ...new Set([...(args.networkUUID == null ? [] : [args.networkUUID as string]), ...((args.networkUUIDs as readonly string[] | null | undefined) ?? [])]),
];

/**
 * True when the UUID expression `uuid` is one networkUUID or networkUUIDs
 * names. The names travel as one comma-joined text parameter matched with
 * LIKE (a UUID holds no comma, `%` or `_`): a list parameter would cost the
 * statement its batch form (docs/ARCHITECTURE.md).
 */
export function isNamed(c: SqlContext, uuid: string): string {
  return `(',' || ${c.value('text', (args) => namedNetworks(args).join(','))} || ',') LIKE ('%,' || ${uuid} || ',%')`;
}

/**
 * The ids of the networks a named series (networkUplinkQuality,
 * networkUplinkThroughput) reads: those networkUUID and networkUUIDs name, of
 * the caller's company, else the network of virtualDeviceUUID.
 */
export function seriesNetworks(c: SqlContext): string {
  // parameters in text order (SQLite's are positional)
  return (
    `(SELECT sn.id FROM networks sn WHERE sn.company_id = ${c.company()} AND (${isNamed(c, 'sn.uuid')} OR ` +
    `(${c.value('boolean', (args) => namedNetworks(args).length === 0)} AND sn.id = ` +
    `(SELECT dv.network_id FROM virtual_devices dv WHERE dv.uuid = ${c.value('uuid', (args) => args.virtualDeviceUUID ?? null)} AND dv.company_id = ${c.company()}))))`
  );
}

/** The uplink metrics a series averages (UPLINK_METRICS but latency and jitter, which have series of their own). */
export type SeriesMetric = Extract<UplinkMetric, 'loss_percent' | 'rx_bps' | 'tx_bps'>;

/**
 * Per network, device, port and bucket: each metric's sum (`<m>_s`) and
 * sample count (`<m>_n`) over the three sources, for the series row aliased
 * `p` (its network_id, and its port when phy_given).
 */
function uplinkSums(c: SqlContext, p: string, metrics: readonly SeriesMetric[]): string {
  const { tiers, raw } = tieredSources(c, UPLINK_TIERS);
  // the series row's port, and its device's ports, when given
  const port = (t: string) =>
    `(NOT ${p}.phy_given OR (${t}.hardware_device_id = ${p}.port_device AND ${t}.port_number = ${p}.port_number)) ` +
    `AND (NOT ${p}.vd_given OR ${t}.hardware_device_id = ${p}.vd_device)`;
  // The series row's network; or, network_id NULL (a named series), the networks named. Two sources each rather than
  // one OR, so each keeps a plain index condition on network_id (a correlated OR would read every network's rows).
  type Networks = (t: string) => string;
  const ofRow: Networks = (t) => `${t}.network_id = ${p}.network_id`;
  const ofNames: Networks = (t) => `${p}.network_id IS NULL AND ${t}.network_id IN ${seriesNetworks(c)}`;
  const fromRollups = (table: string, range: Source, networks: Networks) =>
    `SELECT r.network_id, r.hardware_device_id, r.port_number, ${range.bucket('r.bucket')} AS bucket, ` +
    metrics.map((m) => `r.${m}_sum AS ${m}_s, r.${m}_count AS ${m}_n`).join(', ') +
    ` FROM ${table} r WHERE ${networks('r')} AND ${port('r')} AND r.bucket >= ${range.from()} AND r.bucket < ${range.to()}`;
  const fromSamples = (source: Source, networks: Networks) =>
    `SELECT u.network_id, u.hardware_device_id, u.port_number, ${source.bucket('u.observed_at')} AS bucket, ` +
    metrics.map((m) => `coalesce(u.${m}, 0) AS ${m}_s, CASE WHEN u.${m} IS NULL THEN 0 ELSE 1 END AS ${m}_n`).join(', ') +
    ` FROM uplink_samples u WHERE ${networks('u')} AND ${port('u')} AND u.observed_at >= ${source.from()} AND u.observed_at < ${source.to()}`;
  const all = (networks: Networks) =>
    [...tiers.flatMap((t) => t.ranges.map((range) => fromRollups(t.table, range, networks))), fromSamples(raw[0], networks), fromSamples(raw[1], networks)].join(' UNION ALL ');
  const sums = metrics.map((m) => `sum(g.${m}_s) AS ${m}_s, sum(g.${m}_n) AS ${m}_n`).join(', ');
  return (
    `(SELECT g.network_id, g.hardware_device_id, g.port_number, g.bucket, ${sums} ` +
    `FROM (${all(ofRow)} UNION ALL ${all(ofNames)}) g ` +
    'GROUP BY g.network_id, g.hardware_device_id, g.port_number, g.bucket)'
  );
}

/**
 * The uplink quality series of the row aliased `p`: per bucket and port with
 * loss samples, the share of probes that got through, 1 - average loss / 100.
 */
export function qualitySeries(c: SqlContext, p: string): string {
  const sums = uplinkSums(c, p, ['loss_percent']);
  return (
    '(SELECT a.network_id, a.hardware_device_id, a.port_number, a.bucket, 1 - 1.0 * a.loss_percent_s / a.loss_percent_n / 100 AS value ' +
    `FROM ${sums} a WHERE a.loss_percent_n > 0)`
  );
}

/** The throughput series of the row aliased `p`: per bucket, port and direction with samples, the average bits per second. */
export function throughputSeries(c: SqlContext, p: string): string {
  const sums = uplinkSums(c, p, ['rx_bps', 'tx_bps']);
  const of = (what: 's' | 'n') => `CASE d.direction WHEN 'RX' THEN a.rx_bps_${what} ELSE a.tx_bps_${what} END`;
  return (
    `(SELECT a.network_id, a.hardware_device_id, a.port_number, a.bucket, d.direction, 1.0 * ${of('s')} / ${of('n')} AS value ` +
    `FROM ${sums} a CROSS JOIN (SELECT 'RX' AS direction UNION ALL SELECT 'TX' AS direction) d WHERE ${of('n')} > 0)`
  );
}

/**
 * The rows a series object (MetricsSeries, ThroughputSeries) is rendered
 * over: those of `base` (network_id, phy_given, port_device, port_number)
 * with the min and max of their series' values. `base` is called after the
 * series are built, as its text follows theirs.
 */
export function seriesRows(c: SqlContext, base: () => string, series: (c: SqlContext, p: string) => string): string {
  const p = c.alias();
  return `(SELECT ${p}.*, (SELECT min(s.value) FROM ${series(c, p)} s) AS min_value, (SELECT max(s.value) FROM ${series(c, p)} s) AS max_value FROM ${base()} ${p})`;
}

/**
 * The networks that `activeClients` counts over (the caller's networks named
 * by networkUUID or networkUUIDs), as a subquery of network ids.
 */
function countedNetworks(c: SqlContext): string {
  return `(SELECT sn.id FROM networks sn WHERE (sn.uuid = ${c.arg('networkUUID')} OR ${c.dialect.inList('sn.uuid', c.arg('networkUUIDs'))}) AND sn.company_id = ${c.company()})`;
}

/**
 * Whether the client row aliased `cb` counts: always with
 * input.includeMeterHardware, else only when its MAC address is no hardware
 * device's of the caller's company (a device as reported, e.g. an access
 * point listed as a wired client of its switch).
 */
function meterHardwareCounted(c: SqlContext, cb: string): string {
  const include = c.value('boolean', (args) => (args.input as { includeMeterHardware?: boolean | null } | null | undefined)?.includeMeterHardware === true);
  return `(${include} OR ${cb}.mac_address NOT IN (SELECT hm.mac_address FROM hardware_devices hm WHERE hm.company_id = ${c.company()} AND hm.mac_address IS NOT NULL))`;
}

/**
 * The active-clients counts of one kind: every bucket that holds a report of
 * a device of the networks, with the number of distinct client MAC
 * addresses of that kind their reports listed in it (0 when none), the
 * company's hardware left out unless input.includeMeterHardware.
 */
export function clientCounts(c: SqlContext, wireless: boolean): string {
  const kind = (t: string) => (wireless ? `${t}.is_wireless` : `NOT ${t}.is_wireless`);
  const reportsRaw = (s: Source) =>
    `SELECT ${s.bucket('rc.observed_at')} AS bucket FROM report_receipts rc WHERE rc.hardware_device_id IN ` +
    `(SELECT rh.id FROM hardware_devices rh JOIN virtual_devices rv ON rv.id = rh.virtual_device_id WHERE rv.network_id IN ${countedNetworks(c)}) ` +
    `AND rc.observed_at >= ${s.from()} AND rc.observed_at < ${s.to()}`;
  // parameters in text order: the report tiers' sources are made and used before the presence tiers'
  const reportTiers = tieredSources(c, REPORT_COUNT_TIERS);
  const reportRollups = (table: string, s: Source) =>
    `SELECT ${s.bucket('rr.bucket')} AS bucket FROM ${table} rr WHERE rr.network_id IN ${countedNetworks(c)} AND rr.bucket >= ${s.from()} AND rr.bucket < ${s.to()}`;
  const reports = [
    ...reportTiers.tiers.flatMap((t) => t.ranges.map((s) => reportRollups(t.table, s))),
    reportsRaw(reportTiers.raw[0]),
    reportsRaw(reportTiers.raw[1]),
  ].join(' UNION ALL ');
  const clientsRaw = (s: Source) =>
    `SELECT ${s.bucket('co.observed_at')} AS bucket, co.mac_address FROM client_observations co WHERE co.network_id IN ${countedNetworks(c)} ` +
    `AND ${kind('co')} AND co.observed_at >= ${s.from()} AND co.observed_at < ${s.to()}`;
  const presenceTiers = tieredSources(c, PRESENCE_TIERS);
  // a tier's row holds the MAC addresses one device listed in its bucket, by kind (migration 0043)
  const listed = `cp.${wireless ? 'wireless_macs' : 'wired_macs'}`;
  const presence = (table: string, s: Source) =>
    `SELECT ${s.bucket('cp.bucket')} AS bucket, cm.value AS mac_address FROM ${table} cp, ${c.dialect.jsonTextRows(listed, 'cm')} ` +
    `WHERE cp.network_id IN ${countedNetworks(c)} AND cp.bucket >= ${s.from()} AND cp.bucket < ${s.to()}`;
  const clients = [
    ...presenceTiers.tiers.flatMap((t) => t.ranges.map((s) => presence(t.table, s))),
    clientsRaw(presenceTiers.raw[0]),
    clientsRaw(presenceTiers.raw[1]),
  ].join(' UNION ALL ');
  return (
    `(SELECT b.bucket, coalesce(k.value, 0) AS value FROM (SELECT DISTINCT rb.bucket FROM (${reports}) rb) b ` +
    `LEFT JOIN (SELECT cb.bucket, count(DISTINCT cb.mac_address) AS value FROM (${clients}) cb WHERE ${meterHardwareCounted(c, 'cb')} ` +
    'GROUP BY cb.bucket) k ON k.bucket = b.bucket)'
  );
}

/**
 * True when every network named by the root's arguments `single` (a UUID,
 * which may be null; none for undefined) and `list` (a list of UUIDs, which may be null) is the
 * caller's company's: else a root over them answers null (UNAUTHORIZED), so
 * nothing of the caller's own networks leaks into an answer that names another's.
 */
export function namedNetworksAreCallers(c: SqlContext, single: string | undefined, list: string): string {
  const one =
    single === undefined
      ? ''
      : `(${c.value('boolean', (args) => args[single] == null)} OR EXISTS (SELECT 1 FROM networks an WHERE an.uuid = ${c.arg(single)} AND an.company_id = ${c.company()})) AND `;
  return (
    `${one}NOT EXISTS (SELECT 1 FROM ${c.dialect.listRows(c.arg(list), 'al')} ` +
    `WHERE NOT EXISTS (SELECT 1 FROM networks an2 WHERE an2.uuid = al.value AND an2.company_id = ${c.company()}))`
  );
}
