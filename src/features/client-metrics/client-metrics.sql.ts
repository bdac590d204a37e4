import { ROLLUP_SECONDS } from '../../kernel/telemetry.js';
import type { ArgumentValues, SqlContext } from '../../engine/read.model.js';
import { sources } from '../metrics/metrics.sql.js';
import type { Source } from '../metrics/metrics.sql.js';
import { filterAt, seriesRanges } from '../metrics/metrics.window.js';

/**
 * The SQL of the client metrics roots (wirelessClientMetrics*,
 * allClientMetrics*), as derived tables. A series reads the client samples
 * (client_observations) and their 5-minute rollups (client_metric_rollups)
 * as the other series do (metrics.sql.ts `sources`), plus the 5 minutes
 * before the window as the byte counters' baseline; per client and device
 * in time order, each sample's byte increment; then the filter; then the
 * aggregates per bucket, or over the whole window (the metadata).
 *
 * Parameters are numbered in call order (SQLite's are positional): every
 * builder makes its text left to right, calling a parameter where it goes.
 */

/** Where the filter of the client metrics roots keeps its window. */
export const TIME_FILTER_PATH = 'filter.timeFilter';

/** Which samples a series reads: wireless ones only, with the filter of ClientMetricsTimeseriesFilterInput; or every client's. */
export type ClientSeriesKind = 'wireless' | 'all';

/** The filter of the wireless roots, as coerced by GraphQL. */
export interface ClientMetricsFilterValues {
  readonly bands?: readonly string[] | null;
  readonly channels?: readonly number[] | null;
  readonly clientMacAddresses?: readonly string[] | null;
  readonly partialClientMacAddresses?: readonly string[] | null;
  readonly excludeObservers?: boolean | null;
  readonly rssi?: { readonly min?: number | null; readonly max?: number | null } | null;
  readonly ssidUUIDs?: readonly string[] | null;
  readonly virtualDeviceUUIDs?: readonly string[] | null;
  /** With eventTypes: only samples of clients with a connection event of one of the types in the same bucket (eventFilter). */
  readonly eventType?: string | null;
  readonly eventTypes?: readonly string[] | null;
}

/** The filter of a wireless root's arguments. */
export const clientFilterOf = (args: ArgumentValues): ClientMetricsFilterValues => (args.filter ?? {}) as ClientMetricsFilterValues;

/** The filter's fields that hold MAC addresses, matched lowercase as they are stored. */
const MAC_FIELDS: readonly string[] = ['clientMacAddresses', 'partialClientMacAddresses'];

/** A list field of the filter as text, null or empty meaning no restriction. */
const listOf = (args: ArgumentValues, field: keyof ClientMetricsFilterValues): readonly string[] | null => {
  const list = clientFilterOf(args)[field] as readonly (string | number)[] | null | undefined;
  if (list == null || list.length === 0) return null;
  return list.map((value) => (MAC_FIELDS.includes(field) ? String(value).toLowerCase() : String(value)));
};

/** The connection event types of eventType and eventTypes together, distinct; null when neither names one (no restriction). */
export const eventTypesOf = (args: ArgumentValues): readonly string[] | null => {
  const { eventType, eventTypes } = clientFilterOf(args);
  const types = [...new Set([...(eventType == null ? [] : [eventType]), ...(eventTypes ?? [])])];
  return types.length === 0 ? null : types;
};

/**
 * eventType and eventTypes over the incremented sample row `i`: the client
 * had, on the sample's access point (its hardware), a connection event of one
 * of the types inside the window and in the sample's bucket of the series
 * (the stepSeconds interval since the epoch that holds it). A 5-minute rollup
 * lies wholly in one such bucket (steps that read rollups are multiples of
 * 300 s), so it passes exactly when each of its samples would.
 */
function eventFilter(c: SqlContext, i: string): string {
  const ranges = (args: ArgumentValues, now: Date) => seriesRanges(filterAt(args, TIME_FILTER_PATH), now);
  return (
    `(${c.value('boolean', (args) => eventTypesOf(args) === null)} OR EXISTS (SELECT 1 FROM client_connection_events ce ` +
    `WHERE ce.hardware_device_id = ${i}.hardware_device_id AND ce.mac_address = ${i}.mac_address ` +
    `AND ${c.dialect.inList('ce.type', c.value('text[]', (args) => eventTypesOf(args) ?? []))} ` +
    `AND ce.observed_at >= ${c.value('timestamptz', (args, now) => ranges(args, now).raw[0][0])} ` +
    `AND ce.observed_at < ${c.value('timestamptz', (args, now) => ranges(args, now).raw[1][1])} ` +
    `AND ${c.dialect.epochBucket('ce.observed_at', c.arg(`${TIME_FILTER_PATH}.stepSeconds`))} = ${i}.bucket))`
  );
}

/** The averaged metrics: the sums and counts a sample row carries, and the field names of their averages. */
const AVERAGED = ['signal', 'snr', 'rx_rate', 'tx_rate'] as const;

/** The id of the root's network (networkUUID), of the caller's company. */
export const rootNetwork = (c: SqlContext): string =>
  `(SELECT sn.id FROM networks sn WHERE sn.uuid = ${c.arg('networkUUID')} AND sn.company_id = ${c.company()})`;

/** The hardware of the access point apVirtualDeviceUUID names in the root's network, when the root has that argument. */
const apHardware = (c: SqlContext): string =>
  `(SELECT ah.id FROM hardware_devices ah JOIN virtual_devices av ON av.id = ah.virtual_device_id ` +
  `WHERE av.uuid = ${c.value('uuid', (args) => args.apVirtualDeviceUUID ?? null)} AND av.company_id = ${c.company()})`;

/**
 * The scope of a sample row aliased `t`: the root's network; the access
 * point of apVirtualDeviceUUID; the VLAN number of vlanUUID; the client
 * `mac` (an SQL expression, NULL for every client); wireless clients only
 * for the wireless roots.
 */
function scope(c: SqlContext, t: string, mac: string, kind: ClientSeriesKind): string {
  return (
    `${t}.network_id = ${rootNetwork(c)} ` +
    `AND (${c.value('boolean', (args) => args.apVirtualDeviceUUID == null)} OR ${t}.hardware_device_id = ${apHardware(c)}) ` +
    `AND (${c.value('boolean', (args) => args.vlanUUID == null)} OR ${t}.vlan_id = (SELECT vl.vlan_id FROM vlans vl ` +
    `WHERE vl.uuid = ${c.value('uuid', (args) => args.vlanUUID ?? null)} AND vl.network_id = ${rootNetwork(c)})) ` +
    `AND (${mac} IS NULL OR ${t}.mac_address = ${mac})${kind === 'wireless' ? ` AND ${t}.is_wireless` : ''}`
  );
}

/** The columns every sample row has beside its sums and counts. */
const LAST = 'hardware_device_id, mac_address, observed_at, rx_bytes, tx_bytes, radio_band, channel, hw_mode, ssid';

/** The rollups of buckets `from` to `to` (epoch seconds, parameters made by the callbacks), bucketed by `bucket`. */
function rollupRows(c: SqlContext, mac: string, kind: ClientSeriesKind, bucket: (column: string) => string, inWindow: boolean, from: () => string, to: () => string): string {
  const averaged = AVERAGED.map((m) => `r.${m}_sum AS ${m}_s, r.${m}_count AS ${m}_n`).join(', ');
  return (
    `SELECT ${LAST.split(', ').map((column) => `r.${column}`).join(', ')}, ${bucket('r.bucket')} AS bucket, ${inWindow ? 'TRUE' : 'FALSE'} AS in_window, ${averaged}, ` +
    'r.first_rx_bytes AS first_rx, r.first_tx_bytes AS first_tx, r.rx_growth, r.tx_growth ' +
    `FROM client_metric_rollups r WHERE ${scope(c, 'r', mac, kind)} AND r.bucket >= ${from()} AND r.bucket < ${to()}`
  );
}

/** The raw samples of the source's range that carry a metric (as the rollups hold only those: an older sender's wired clients carry none). */
function rawRows(c: SqlContext, mac: string, kind: ClientSeriesKind, source: Source, inWindow: boolean): string {
  const averaged = AVERAGED.map((m) => `coalesce(o.${m}, 0) AS ${m}_s, CASE WHEN o.${m} IS NULL THEN 0 ELSE 1 END AS ${m}_n`).join(', ');
  const carries = [...AVERAGED, 'rx_bytes', 'tx_bytes'].map((m) => `o.${m} IS NOT NULL`).join(' OR ');
  return (
    `SELECT ${LAST.split(', ').map((column) => `o.${column}`).join(', ')}, ${source.bucket('o.observed_at')} AS bucket, ${inWindow ? 'TRUE' : 'FALSE'} AS in_window, ${averaged}, ` +
    'o.rx_bytes AS first_rx, o.tx_bytes AS first_tx, 0 AS rx_growth, 0 AS tx_growth ' +
    `FROM client_observations o WHERE ${scope(c, 'o', mac, kind)} AND (${carries}) AND o.observed_at >= ${source.from()} AND o.observed_at < ${source.to()}`
  );
}

/**
 * The samples of the window, and those of the 5 minutes before it
 * (in_window false: the byte counters' baseline), each with its byte
 * increments (rx_inc, tx_inc): the growth since the client's previous sample
 * on the same device; the whole counter when either counter fell (the
 * client reconnected, so its counters restarted); 0 for a client's first
 * sample. A rollup row spans its 5 minutes: the growth from the previous
 * row's last counters to its first sample's, plus its own growth from first
 * to last, so it counts what its raw samples would.
 */
function incremented(c: SqlContext, mac: string, kind: ClientSeriesKind): string {
  const { rollup, raw } = sources(c, TIME_FILTER_PATH);
  const ranges = (args: ArgumentValues, now: Date) => seriesRanges(filterAt(args, TIME_FILTER_PATH), now);
  const startMs = (args: ArgumentValues, now: Date) => Date.parse(ranges(args, now).raw[0][0]);
  // the baseline: raw samples of the 5 minutes before the window, and the last whole rollup bucket before it
  const before: Source = {
    bucket: () => 'CAST(NULL AS bigint)',
    from: () => c.value('timestamptz', (args, now) => new Date(startMs(args, now) - ROLLUP_SECONDS * 1000).toISOString()),
    to: () => c.value('timestamptz', (args, now) => new Date(startMs(args, now)).toISOString()),
  };
  const lastBucket = (args: ArgumentValues, now: Date) => Math.floor(startMs(args, now) / 1000 / ROLLUP_SECONDS) * ROLLUP_SECONDS - ROLLUP_SECONDS;
  const rows = [
    rollupRows(c, mac, kind, () => 'CAST(NULL AS bigint)', false, () => c.value('bigint', lastBucket), () => c.value('bigint', (args, now) => lastBucket(args, now) + ROLLUP_SECONDS)),
    rawRows(c, mac, kind, before, false),
    rollupRows(c, mac, kind, rollup.bucket, true, rollup.from, rollup.to),
    rawRows(c, mac, kind, raw[0], true),
    rawRows(c, mac, kind, raw[1], true),
  ].join(' UNION ALL ');
  // from the previous row's last counters to this row's first, then this row's own growth (a rollup's 5 minutes)
  const restarted = 'x.first_rx < x.p_rx OR x.first_tx < x.p_tx';
  const growth = (column: string, previous: string) =>
    `CASE WHEN x.first_${column} IS NULL OR x.${previous} IS NULL THEN 0 WHEN ${restarted} THEN x.first_${column} ELSE x.first_${column} - x.${previous} END + x.${column}_growth`;
  return (
    `(SELECT x.*, ${growth('rx', 'p_rx')} AS rx_inc, ${growth('tx', 'p_tx')} AS tx_inc FROM (SELECT s.*, lag(s.rx_bytes) OVER o AS p_rx, ` +
    `lag(s.tx_bytes) OVER o AS p_tx FROM (${rows}) s WINDOW o AS (PARTITION BY s.hardware_device_id, s.mac_address ORDER BY s.observed_at)) x)`
  );
}

/** `(<nothing given> OR <expr> IN <the list>)`: a list field of the filter, as two parameters. */
function inFilterList(c: SqlContext, expr: string, field: keyof ClientMetricsFilterValues): string {
  return `(${c.value('boolean', (args) => listOf(args, field) === null)} OR ${c.dialect.inList(expr, c.value('text[]', (args) => listOf(args, field) ?? []))})`;
}

/**
 * The filter of ClientMetricsTimeseriesFilterInput over the incremented
 * sample row `i`, every field given (null or an empty list: no restriction).
 * rssi compares the sample's signal (a rollup's: its average).
 */
function clientFilter(c: SqlContext, i: string): string {
  const rssi = (bound: 'min' | 'max') => c.value('integer', (args) => clientFilterOf(args).rssi?.[bound] ?? null);
  const signal = `1.0 * ${i}.signal_s / ${i}.signal_n`;
  return [
    inFilterList(c, `${i}.radio_band`, 'bands'),
    inFilterList(c, `CAST(${i}.channel AS text)`, 'channels'),
    inFilterList(c, `${i}.mac_address`, 'clientMacAddresses'),
    `(${c.value('boolean', (args) => listOf(args, 'partialClientMacAddresses') === null)} OR EXISTS (SELECT 1 FROM ` +
      `${c.dialect.listRows(c.value('text[]', (args) => listOf(args, 'partialClientMacAddresses') ?? []), 'pm')} WHERE ${i}.mac_address LIKE '%' || pm.value || '%'))`,
    `(${rssi('min')} IS NULL OR (${i}.signal_n > 0 AND ${signal} >= ${rssi('min')}))`,
    `(${rssi('max')} IS NULL OR (${i}.signal_n > 0 AND ${signal} <= ${rssi('max')}))`,
    `(${c.value('boolean', (args) => listOf(args, 'ssidUUIDs') === null)} OR ${i}.ssid IN (SELECT fs.ssid FROM ssids fs WHERE ` +
      `${c.dialect.inList('fs.uuid', c.value('uuid[]', (args) => listOf(args, 'ssidUUIDs') ?? []))} AND fs.network_id = ${rootNetwork(c)}))`,
    `(${c.value('boolean', (args) => listOf(args, 'virtualDeviceUUIDs') === null)} OR ${i}.hardware_device_id IN (SELECT fh.id FROM hardware_devices fh ` +
      `JOIN virtual_devices fv ON fv.id = fh.virtual_device_id WHERE ${c.dialect.inList('fv.uuid', c.value('uuid[]', (args) => listOf(args, 'virtualDeviceUUIDs') ?? []))} ` +
      `AND fv.company_id = ${c.company()}))`,
    eventFilter(c, i),
    `NOT (${c.value('boolean', (args) => clientFilterOf(args).excludeObservers === true)} AND EXISTS (SELECT 1 FROM hardware_devices oh ` +
      `JOIN virtual_devices ov ON ov.id = oh.virtual_device_id WHERE oh.id = ${i}.hardware_device_id AND ov.device_type = 'OBSERVER'))`,
  ].join(' AND ');
}

/** The samples of the client `mac` (NULL: every client) that count: inside the window and, for the wireless roots, selected by the filter. */
export function countedSamples(c: SqlContext, mac: string, kind: ClientSeriesKind): string {
  const i = c.alias();
  const rows = incremented(c, mac, kind);
  return `(SELECT ${i}.* FROM ${rows} ${i} WHERE ${i}.in_window${kind === 'wireless' ? ` AND ${clientFilter(c, i)}` : ''})`;
}

/**
 * The client metrics of the client `mac` (NULL: every client), per bucket (`perBucket`) or over
 * the whole window: distinct clients, the averages weighted by sample
 * count, the byte increments summed, and the Wi-Fi generation every sample
 * shares (null when they differ or none is known).
 */
export function clientMetrics(c: SqlContext, mac: string, kind: ClientSeriesKind, perBucket: boolean): string {
  const averages = AVERAGED.map((m) => `1.0 * sum(a.${m}_s) / nullif(sum(a.${m}_n), 0) AS ${m}`).join(', ');
  return (
    `(SELECT ${perBucket ? 'a.bucket, ' : ''}count(DISTINCT a.mac_address) AS client_count, ${averages}, ` +
    'coalesce(sum(a.rx_inc), 0) AS rx_bytes, coalesce(sum(a.tx_inc), 0) AS tx_bytes, ' +
    `CASE WHEN min(a.hw_mode) = max(a.hw_mode) THEN min(a.hw_mode) END AS hw_mode FROM ${countedSamples(c, mac, kind)} a` +
    `${perBucket ? ' GROUP BY a.bucket' : ''})`
  );
}

/** The byte series of the series row `p` (its `direction`, 'rx' or 'tx'): per bucket with samples, the bytes the clients' counters grew. */
export function byteSeries(c: SqlContext, p: string): string {
  return `(SELECT a.bucket, CASE ${p}.direction WHEN 'rx' THEN sum(a.rx_inc) ELSE sum(a.tx_inc) END AS value FROM ${countedSamples(c, `${p}.mac`, 'all')} a GROUP BY a.bucket)`;
}
