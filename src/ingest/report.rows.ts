import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Database } from '../db/tables.js';
import type { DeviceRow, EventRow, PresenceSet, StoredUplinkRollup } from './report.repository.js';
import type { ClientBandChange, ClientSnrChange, ClientTierRow } from './report.client-tiers.js';
import type { ClientReport, DeviceReport, RadioChannelReport } from './report.protocol.js';
import { CLIENT_AVERAGED_METRICS, CLIENT_SAMPLE_FIELDS, OUTLET_METRICS, RADIO_UTILIZATION_METRICS, ROLLUP_SECONDS, UPLINK_METRICS } from '../kernel/telemetry.js';

/** A stored report with the device it came from. */
export interface FreshReport {
  readonly report: DeviceReport;
  readonly device: DeviceRow;
}

/** The key of an outlet's reading: its PDU, the report's time and the outlet's number. */
export const readingKey = (deviceId: number, observedAt: string, outletNumber: number): string => `${deviceId}/${observedAt}/${outletNumber}`;

/** The start of the 5-minute bucket holding an ISO time, in seconds since the epoch. */
export function bucketOf(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000 / ROLLUP_SECONDS) * ROLLUP_SECONDS;
}

/** The rows of every table ingest appends to, from the reports stored by one request. */
export interface SeriesRows {
  readonly uplinkSamples: Insertable<Database['uplink_samples']>[];
  readonly portCounters: Insertable<Database['port_counters']>[];
  readonly clientObservationSets: Insertable<Database['client_observation_sets']>[];
  readonly clientPresence: PresenceSet[];
  readonly uplinkRollups: Insertable<Database['uplink_rollups']>[];
  readonly counterRollups: Insertable<Database['port_counter_rollups']>[];
  readonly clientMetricRollups: Insertable<Database['client_metric_rollups']>[];
  readonly reportRollups: { network_id: number; bucket: number; report_count: number }[];
  readonly radioSamples: Insertable<Database['radio_samples']>[];
  readonly radioRollups: Insertable<Database['radio_rollups']>[];
  readonly dnsCounters: Insertable<Database['dns_counters']>[];
  readonly dnsRollups: Insertable<Database['dns_counter_rollups']>[];
  readonly outletSamples: Insertable<Database['pdu_outlet_samples']>[];
  readonly outletRollups: Insertable<Database['pdu_outlet_rollups']>[];
  readonly temperatureSamples: Insertable<Database['device_temperature_samples']>[];
  readonly temperatureRollups: Insertable<Database['device_temperature_rollups']>[];
  readonly resourceSamples: Insertable<Database['resource_samples']>[];
  readonly resourceRollups: Insertable<Database['resource_rollups']>[];
  readonly events: EventRow[];
  readonly connectionEvents: Insertable<Database['client_connection_events']>[];
}

/**
 * Turns stored reports into time-series rows, each at its own time (an
 * outlet reading with the energy `energyUsed` says it used, by readingKey), and
 * folds them into their rollups here, so that one upsert per rollup row
 * reaches the database (PostgreSQL refuses to update one row twice in a
 * statement).
 */
export function buildSeriesRows(companyId: number, fresh: readonly FreshReport[], energyUsed: ReadonlyMap<string, number> = new Map()): SeriesRows {
  const rows: SeriesRows = {
    uplinkSamples: [],
    portCounters: [],
    clientObservationSets: [],
    clientPresence: [],
    uplinkRollups: [],
    counterRollups: [],
    clientMetricRollups: [],
    reportRollups: [],
    radioSamples: [],
    radioRollups: [],
    dnsCounters: [],
    dnsRollups: [],
    outletSamples: [],
    outletRollups: [],
    temperatureSamples: [],
    temperatureRollups: [],
    resourceSamples: [],
    resourceRollups: [],
    events: [],
    connectionEvents: [],
  };
  const radios = new Map<string, Record<string, unknown>>();
  const dns = new Map<number, Map<number, Insertable<Database['dns_counter_rollups']>>>();
  const uplink = new Map<string, Insertable<Database['uplink_rollups']>>();
  const counters = new Map<string, Insertable<Database['port_counter_rollups']>>();
  const presence = new Map<string, PresenceSet>();
  const clientMetrics = new Map<string, Insertable<Database['client_metric_rollups']>>();
  const reportCounts = new Map<string, { network_id: number; bucket: number; report_count: number }>();
  const outlets = new Map<string, Record<string, unknown>>();
  const temperatures = new Map<string, Record<string, unknown>>();
  const resources = new Map<string, Insertable<Database['resource_rollups']>>();

  for (const { report, device } of fresh) {
    const networkId = device.networkId;
    const bucket = bucketOf(report.observedAt);
    for (const s of report.uplinkSamples ?? []) {
      const sample = {
        network_id: networkId,
        hardware_device_id: device.id,
        port_number: s.portNumber,
        observed_at: s.observedAt,
        latency_ms: s.latencyMs,
        jitter_ms: s.jitterMs,
        loss_percent: s.lossPercent,
        rx_bps: s.rxBitsPerSecond,
        tx_bps: s.txBitsPerSecond,
      };
      rows.uplinkSamples.push(sample);
      const bucket = bucketOf(s.observedAt);
      const keys = { network_id: sample.network_id, hardware_device_id: sample.hardware_device_id, port_number: sample.port_number, bucket };
      addToSums(uplink, `${sample.hardware_device_id}/${sample.port_number}/${bucket}`, keys, UPLINK_METRICS, sample, true);
    }
    for (const port of report.interfaces ?? []) {
      if (port.counters === null) continue;
      const c = port.counters;
      const reading = {
        hardware_device_id: device.id,
        port_number: port.portNumber,
        observed_at: report.observedAt,
        uptime_seconds: report.uptimeSeconds ?? null,
        rx_bytes: c.rxBytes,
        tx_bytes: c.txBytes,
        rx_packets: c.rxPackets,
        tx_packets: c.txPackets,
        rx_errors: c.rxErrors,
        tx_errors: c.txErrors,
      };
      rows.portCounters.push(reading);
      const key = `${device.id}/${port.portNumber}/${bucket}`;
      const held = counters.get(key);
      if (held === undefined || held.observed_at < reading.observed_at) counters.set(key, { ...reading, bucket });
    }
    addResourceSample(rows.resourceSamples, resources, device.id, report, bucket);
    for (const radio of report.radioChannels ?? []) {
      const sample = radioSample(device.id, report.observedAt, radio);
      rows.radioSamples.push(sample);
      addToSums(radios, `${device.id}/${radio.radioBand}/${bucket}`, { hardware_device_id: device.id, radio_band: radio.radioBand, bucket }, RADIO_UTILIZATION_METRICS, sample);
    }
    if (report.dnsRequests != null) {
      const reading = { hardware_device_id: device.id, observed_at: report.observedAt, uptime_seconds: report.uptimeSeconds ?? null, requests: report.dnsRequests };
      rows.dnsCounters.push(reading);
      const buckets = dns.get(device.id) ?? new Map<number, Insertable<Database['dns_counter_rollups']>>();
      dns.set(device.id, buckets);
      const held = buckets.get(bucket);
      if (held === undefined || held.observed_at < reading.observed_at) buckets.set(bucket, { ...reading, bucket });
    }
    for (const o of report.outlets ?? []) {
      const sample = {
        hardware_device_id: device.id,
        outlet_number: o.outletNumber,
        observed_at: report.observedAt,
        current_amps: o.currentAmps,
        power_watts: o.powerWatts,
        voltage_volts: o.voltageVolts,
        energy_kwh: o.energyKWh,
        energy_used_kwh: energyUsed.get(readingKey(device.id, report.observedAt, o.outletNumber)) ?? null,
      };
      rows.outletSamples.push(sample);
      addToSums(outlets, `${device.id}/${o.outletNumber}/${bucket}`, { hardware_device_id: device.id, outlet_number: o.outletNumber, bucket }, OUTLET_METRICS, sample);
    }
    if (typeof report.temperatureCelsius === 'number') {
      const sample = { hardware_device_id: device.id, observed_at: report.observedAt, temperature_celsius: report.temperatureCelsius };
      rows.temperatureSamples.push(sample);
      addToSums(temperatures, `${device.id}/${bucket}`, { hardware_device_id: device.id, bucket }, ['temperature_celsius'], sample);
    }
    for (const event of report.events ?? []) {
      rows.events.push(eventRow(companyId, device, event.type, event.observedAt, event.details, 'device'));
    }
    if (networkId === null) continue;
    const countKey = `${networkId}/${bucket}`;
    const count = reportCounts.get(countKey) ?? { network_id: networkId, bucket, report_count: 0 };
    count.report_count += 1;
    reportCounts.set(countKey, count);
    for (const { macAddress, events } of report.clientConnectionEvents ?? []) {
      for (const e of events) {
        rows.connectionEvents.push({
          network_id: networkId,
          hardware_device_id: device.id,
          virtual_device_id: device.virtualDeviceId,
          mac_address: macAddress,
          type: e.type,
          observed_at: e.observedAt,
          reason: e.reason,
        });
      }
    }
    const samples: unknown[][] = [];
    for (const client of report.clients ?? []) {
      const observation = {
        network_id: networkId,
        hardware_device_id: device.id,
        observed_at: report.observedAt,
        mac_address: client.macAddress,
        is_wireless: client.isWireless,
        ...clientSample(client),
      };
      samples.push(compactSample(observation));
      addToClientMetricRollup(clientMetrics, observation, bucket);
      const listed = presenceSet(presence, networkId, bucket, device.id);
      (client.isWireless ? listed.wireless : listed.wired).add(client.macAddress);
    }
    // one compact row of the clients listed (migration 0040)
    if (samples.length > 0) {
      rows.clientObservationSets.push({ network_id: networkId, hardware_device_id: device.id, observed_at: report.observedAt, samples: JSON.stringify(samples) });
    }
  }
  rows.uplinkRollups.push(...uplink.values());
  rows.counterRollups.push(...counters.values());
  rows.clientPresence.push(...presence.values());
  rows.clientMetricRollups.push(...clientMetrics.values());
  rows.reportRollups.push(...reportCounts.values());
  rows.radioRollups.push(...(radios.values() as Iterable<Insertable<Database['radio_rollups']>>));
  rows.resourceRollups.push(...resources.values());
  for (const buckets of dns.values()) rows.dnsRollups.push(...buckets.values());
  rows.outletRollups.push(...(outlets.values() as Iterable<Insertable<Database['pdu_outlet_rollups']>>));
  rows.temperatureRollups.push(...(temperatures.values() as Iterable<Insertable<Database['device_temperature_rollups']>>));
  return rows;
}

/** A client sample as the array a compact row holds (CLIENT_SAMPLE_FIELDS): is_wireless as 0 or 1, a missing field null, the trailing nulls left out. */
function compactSample(observation: Readonly<Record<(typeof CLIENT_SAMPLE_FIELDS)[number], unknown>>): unknown[] {
  const fields = CLIENT_SAMPLE_FIELDS.map((field) => (field === 'is_wireless' ? (observation.is_wireless === true ? 1 : 0) : (observation[field] ?? null)));
  let end = fields.length;
  while (end > 2 && fields[end - 1] === null) end -= 1;
  return fields.slice(0, end);
}

/** A client's metrics as the columns of client_observations (migration 0014; a view of client_observation_sets since 0040). */
function clientSample(client: ClientReport) {
  return {
    radio_band: client.radioBand,
    channel: client.channel,
    signal: client.signal,
    snr: client.snr,
    rx_rate: client.rxRateMbps,
    tx_rate: client.txRateMbps,
    rx_bytes: client.rxBytes,
    tx_bytes: client.txBytes,
    hw_mode: client.hwMode,
    ssid: client.ssid,
    vlan_id: client.vlanID,
  };
}

/** A client's sample as ingest builds it: the observation's row and its metrics. */
type ClientSampleRow = Insertable<Database['client_observations']> & ReturnType<typeof clientSample>;

/** A 5-minute client rollup as ingest builds it, every column set. */
type ClientMetricRollup = Insertable<Database['client_metric_rollups']>;

/**
 * Folds a client sample into its 5-minute rollup (device, client, bucket):
 * averaged metrics add to sum and count, the rest is the last sample's. A
 * sample with no metric at all (a wired client of an older sender) makes no
 * rollup row. Each rollup is one object literal of the table's columns (no
 * spread of the sample, no deleted keys): this ran for every client of every
 * report, and the spread-then-delete objects cost 7.7% of a PostgreSQL
 * server's CPU while a fleet reported (docs/benchmarks.md, "Arrays as text").
 */
function addToClientMetricRollup(rollups: Map<string, ClientMetricRollup>, sample: ClientSampleRow, bucket: number): void {
  if (sample.signal === null && sample.snr === null && sample.rx_rate === null && sample.tx_rate === null && sample.rx_bytes === null && sample.tx_bytes === null) return;
  const key = `${sample.hardware_device_id}/${sample.mac_address}/${bucket}`;
  const held = rollups.get(key);
  const reading = { rx: sample.rx_bytes, tx: sample.tx_bytes };
  let rollup: ClientMetricRollup;
  if (held === undefined) {
    rollup = clientMetricRollup(sample, bucket, undefined, sample.observed_at, reading, 0, 0);
  } else {
    const later = held.observed_at <= sample.observed_at;
    const last = { rx: held.rx_bytes ?? null, tx: held.tx_bytes ?? null };
    const first = { rx: held.first_rx_bytes ?? null, tx: held.first_tx_bytes ?? null };
    const earlier = sample.observed_at < held.first_observed_at;
    // a sample after the span grows it from its last reading, one before it from the sample to its first; one inside it adds nothing
    const [from, to] = later ? [last, reading] : earlier ? [reading, first] : [reading, reading];
    rollup = clientMetricRollup(
      later ? sample : held,
      bucket,
      held,
      earlier ? sample.observed_at : held.first_observed_at,
      earlier ? reading : first,
      (held.rx_growth ?? 0) + counterGrowth(from, to, 'rx'),
      (held.tx_growth ?? 0) + counterGrowth(from, to, 'tx'),
    );
  }
  for (const metric of CLIENT_AVERAGED_METRICS) {
    const value = sample[metric];
    const [sum, count] = AVERAGED_COLUMNS[metric];
    rollup[sum] = (rollup[sum] ?? 0) + (value ?? 0);
    rollup[count] = (rollup[count] ?? 0) + (value === null ? 0 : 1);
  }
  rollups.set(key, rollup);
}

/** Each averaged metric's sum and count columns, named once. */
const AVERAGED_COLUMNS = {
  signal: ['signal_sum', 'signal_count'],
  snr: ['snr_sum', 'snr_count'],
  rx_rate: ['rx_rate_sum', 'rx_rate_count'],
  tx_rate: ['tx_rate_sum', 'tx_rate_count'],
} as const satisfies Record<(typeof CLIENT_AVERAGED_METRICS)[number], readonly [keyof ClientMetricRollup, keyof ClientMetricRollup]>;

/** The last-sample columns a client rollup takes from a sample or from the rollup it replaces. */
type ClientLastSample = Pick<ClientMetricRollup, 'network_id' | 'hardware_device_id' | 'mac_address' | 'is_wireless' | 'observed_at' | 'radio_band' | 'channel' | 'hw_mode' | 'ssid' | 'vlan_id' | 'rx_bytes' | 'tx_bytes'>;

/**
 * A client rollup: the last sample's columns from `last`, the averaged
 * metrics' sums and counts of `held` (0 without it), and the span's first
 * reading and growth.
 */
function clientMetricRollup(
  last: ClientLastSample,
  bucket: number,
  held: ClientMetricRollup | undefined,
  firstObservedAt: string,
  first: ClientCounters,
  rxGrowth: number,
  txGrowth: number,
): ClientMetricRollup {
  return {
    network_id: last.network_id,
    hardware_device_id: last.hardware_device_id,
    mac_address: last.mac_address,
    bucket,
    is_wireless: last.is_wireless,
    observed_at: last.observed_at,
    radio_band: last.radio_band ?? null,
    channel: last.channel ?? null,
    hw_mode: last.hw_mode ?? null,
    ssid: last.ssid ?? null,
    vlan_id: last.vlan_id ?? null,
    rx_bytes: last.rx_bytes ?? null,
    tx_bytes: last.tx_bytes ?? null,
    signal_sum: held?.signal_sum ?? 0,
    signal_count: held?.signal_count ?? 0,
    snr_sum: held?.snr_sum ?? 0,
    snr_count: held?.snr_count ?? 0,
    rx_rate_sum: held?.rx_rate_sum ?? 0,
    rx_rate_count: held?.rx_rate_count ?? 0,
    tx_rate_sum: held?.tx_rate_sum ?? 0,
    tx_rate_count: held?.tx_rate_count ?? 0,
    first_observed_at: firstObservedAt,
    first_rx_bytes: first.rx,
    first_tx_bytes: first.tx,
    rx_growth: rxGrowth,
    tx_growth: txGrowth,
  };
}

/** Byte counters of a client sample. */
type ClientCounters = { readonly rx: number | null; readonly tx: number | null };

/** What one counter grew from one sample to a later one: the later value whole when either counter fell (the client reconnected). */
function counterGrowth(from: ClientCounters, to: ClientCounters, counter: 'rx' | 'tx'): number {
  const [a, b] = [from[counter], to[counter]];
  if (a === null || b === null) return 0;
  const restarted = (to.rx !== null && from.rx !== null && to.rx < from.rx) || (to.tx !== null && from.tx !== null && to.tx < from.tx);
  return restarted ? b : b - a;
}

/** The row of one physical radio of a report at the report's time. */
function radioSample(hardwareDeviceId: number, observedAt: string, radio: RadioChannelReport): Insertable<Database['radio_samples']> {
  return {
    hardware_device_id: hardwareDeviceId,
    radio_band: radio.radioBand,
    observed_at: observedAt,
    channel: radio.channel,
    channel_width_mhz: radio.channelWidthMHz,
    tx_power_dbm: radio.txPowerDbm,
    noise_floor_dbm: radio.noiseFloorDbm,
    total_utilization: radio.totalUtilization,
    rx_utilization: radio.rxUtilization,
    tx_utilization: radio.txUtilization,
    self_utilization: radio.selfUtilization,
    obss_utilization: radio.obssUtilization,
    non_wifi_utilization: radio.nonWifiUtilization,
  };
}

/**
 * Adds a sample to the rollup of `key` (made from `keys` with every sum and
 * count at 0, and min and max null, when new): for each metric the sample
 * has, its sum grows by the value and its count by one; with `extremes`, its
 * `_min` and `_max` columns follow the value too (the uplink rollups keep them).
 */
function addToSums(
  rollups: Map<string, Record<string, unknown>>,
  key: string,
  keys: Record<string, unknown>,
  metrics: readonly string[],
  sample: Readonly<Record<string, unknown>>,
  extremes = false,
): void {
  const columns = sumColumns(metrics);
  let rollup = rollups.get(key);
  if (rollup === undefined) {
    rollup = { ...keys };
    for (const c of columns) {
      rollup[c.count] = 0;
      rollup[c.sum] = 0;
      if (extremes) {
        rollup[c.min] = null;
        rollup[c.max] = null;
      }
    }
    rollups.set(key, rollup);
  }
  for (const c of columns) {
    const value = sample[c.metric];
    if (typeof value !== 'number') continue;
    rollup[c.count] = (rollup[c.count] as number) + 1;
    rollup[c.sum] = (rollup[c.sum] as number) + value;
    if (!extremes) continue;
    const min = rollup[c.min] as number | null;
    const max = rollup[c.max] as number | null;
    rollup[c.min] = min === null ? value : Math.min(min, value);
    rollup[c.max] = max === null ? value : Math.max(max, value);
  }
}

/** A metric's rollup columns. */
interface SumColumns {
  readonly metric: string;
  readonly count: string;
  readonly sum: string;
  readonly min: string;
  readonly max: string;
}

const SUM_COLUMNS = new WeakMap<readonly string[], readonly SumColumns[]>();

/** The rollup columns of each of `metrics` (a module's constant list), named once rather than for every sample. */
function sumColumns(metrics: readonly string[]): readonly SumColumns[] {
  let columns = SUM_COLUMNS.get(metrics);
  if (columns === undefined) {
    columns = metrics.map((metric) => ({ metric, count: `${metric}_count`, sum: `${metric}_sum`, min: `${metric}_min`, max: `${metric}_max` }));
    SUM_COLUMNS.set(metrics, columns);
  }
  return columns;
}

/** An event of the device's network (the one its virtual device is in now). */
export function eventRow(
  companyId: number,
  device: { readonly id: number; readonly virtualDeviceId: number | null; readonly networkId: number | null },
  type: string,
  observedAt: string,
  details: string | null,
  source: 'device' | 'netgraph',
): EventRow {
  return {
    uuid: randomUUID(),
    company_id: companyId,
    network_id: device.networkId,
    hardware_device_id: device.id,
    virtual_device_id: device.virtualDeviceId,
    type,
    observed_at: observedAt,
    details,
    source,
  };
}

/**
 * A report's CPU and memory as a resource sample (when it carries any of
 * them), folded into its 5-minute rollup: the CPU percentage, and the memory
 * percentage (used / total) when the report carries both, add to sum and count.
 */
function addResourceSample(
  samples: Insertable<Database['resource_samples']>[],
  rollups: Map<string, Insertable<Database['resource_rollups']>>,
  hardwareDeviceId: number,
  report: DeviceReport,
  bucket: number,
): void {
  const { cpuPercent: cpu, memoryUsedBytes: used, memoryTotalBytes: total } = report;
  if (cpu == null && used == null && total == null) return;
  samples.push({ hardware_device_id: hardwareDeviceId, observed_at: report.observedAt, cpu_percent: cpu ?? null, memory_used_bytes: used ?? null, memory_total_bytes: total ?? null });
  const memory = used != null && total != null && total > 0 ? (100 * used) / total : null;
  const key = `${hardwareDeviceId}/${bucket}`;
  const held = rollups.get(key) ?? { hardware_device_id: hardwareDeviceId, bucket, cpu_percent_count: 0, cpu_percent_sum: 0, memory_percent_count: 0, memory_percent_sum: 0 };
  rollups.set(key, {
    ...held,
    cpu_percent_count: held.cpu_percent_count + (cpu == null ? 0 : 1),
    cpu_percent_sum: held.cpu_percent_sum + (cpu ?? 0),
    memory_percent_count: held.memory_percent_count + (memory === null ? 0 : 1),
    memory_percent_sum: held.memory_percent_sum + (memory ?? 0),
  });
}

/**
 * Folds a batch's 5-minute uplink rollup rows into the rows of a coarser
 * tier (`seconds` wide): per stored network, port and tier bucket, counts
 * and sums add up and min and max widen, so the tier row grows exactly as
 * the 5-minute rows of its bucket do. Each 5-minute row counts under the
 * network its stored row holds (`stored`), which is what the 5-minute reads
 * see; a row of no network (which no series reads) is left out.
 */
export function foldUplinkTier(
  values: readonly Insertable<Database['uplink_rollups']>[],
  stored: readonly StoredUplinkRollup[],
  seconds: number,
): Insertable<Database['uplink_rollups']>[] {
  const key = (device: unknown, port: unknown, bucket: unknown) => `${String(device)}/${String(port)}/${String(bucket)}`;
  const networks = new Map(stored.map((s) => [key(s.hardware_device_id, s.port_number, s.bucket), s.network_id]));
  const tier = new Map<string, Record<string, unknown>>();
  for (const row of values) {
    const network = networks.get(key(row.hardware_device_id, row.port_number, row.bucket));
    if (network === undefined || network === null) continue;
    const bucket = row.bucket - (row.bucket % seconds);
    const keys = { network_id: Number(network), hardware_device_id: row.hardware_device_id, port_number: row.port_number, bucket };
    const tierKey = `${String(network)}/${key(row.hardware_device_id, row.port_number, bucket)}`;
    const held = tier.get(tierKey);
    if (held === undefined) {
      tier.set(tierKey, { ...row, ...keys });
      continue;
    }
    const source = row as Readonly<Record<string, unknown>>;
    for (const metric of UPLINK_METRICS) {
      held[`${metric}_count`] = (held[`${metric}_count`] as number) + (source[`${metric}_count`] as number);
      held[`${metric}_sum`] = (held[`${metric}_sum`] as number) + (source[`${metric}_sum`] as number);
      held[`${metric}_min`] = widen(held[`${metric}_min`], source[`${metric}_min`], Math.min);
      held[`${metric}_max`] = widen(held[`${metric}_max`], source[`${metric}_max`], Math.max);
    }
  }
  return [...tier.values()] as Insertable<Database['uplink_rollups']>[];
}

/** The extreme of two optional extremes (null: no sample). */
function widen(a: unknown, b: unknown, pick: (x: number, y: number) => number): number | null {
  if (typeof a !== 'number') return typeof b === 'number' ? b : null;
  return typeof b === 'number' ? pick(a, b) : a;
}

/** The presence set of a network, bucket and device in `sets`, made empty when missing. */
function presenceSet(sets: Map<string, PresenceSet>, networkId: number, bucket: number, deviceId: number): PresenceSet {
  const key = `${networkId}/${bucket}/${deviceId}`;
  let set = sets.get(key);
  if (set === undefined) {
    set = { network_id: networkId, bucket, hardware_device_id: deviceId, wireless: new Set(), wired: new Set() };
    sets.set(key, set);
  }
  return set;
}

/** A batch's client presence sets in the buckets of a coarser tier (`seconds` wide): the sets of one device in one network and coarser bucket together. */
export function coarsenPresence(values: readonly PresenceSet[], seconds: number): PresenceSet[] {
  const tier = new Map<string, PresenceSet>();
  for (const row of values) {
    const held = presenceSet(tier, row.network_id, row.bucket - (row.bucket % seconds), row.hardware_device_id);
    for (const mac of row.wireless) held.wireless.add(mac);
    for (const mac of row.wired) held.wired.add(mac);
  }
  return [...tier.values()];
}

/** A batch's report counts per network in the buckets of a coarser tier (`seconds` wide): the counts add up. */
export function coarsenReportCounts(values: readonly { network_id: number; bucket: number; report_count: number }[], seconds: number) {
  const tier = new Map<string, { network_id: number; bucket: number; report_count: number }>();
  for (const row of values) {
    const bucket = row.bucket - (row.bucket % seconds);
    const held = tier.get(`${row.network_id}/${bucket}`) ?? { network_id: row.network_id, bucket, report_count: 0 };
    held.report_count += row.report_count;
    tier.set(`${row.network_id}/${bucket}`, held);
  }
  return [...tier.values()];
}

/**
 * A batch's 5-minute rows of a rollup of counts and sums (resource_rollups,
 * radio_rollups, pdu_outlet_rollups, device_temperature_rollups) in the
 * buckets of a coarser tier (`seconds` wide, migrations 0031 and 0032): per key (every column but the
 * bucket, the counts and the sums) and tier bucket, the counts and sums add
 * up, so the tier row grows exactly as the 5-minute rows of its bucket do.
 */
export function coarsenSums<T extends { readonly bucket: number }>(values: readonly T[], seconds: number): T[] {
  const added = (name: string) => name.endsWith('_count') || name.endsWith('_sum');
  const tier = new Map<string, Record<string, unknown>>();
  for (const row of values) {
    const fields = row as unknown as Readonly<Record<string, unknown>>;
    const bucket = row.bucket - (row.bucket % seconds);
    // the row's other columns, in order, then the tier's bucket
    let key = '';
    for (const name in fields) if (name !== 'bucket' && !added(name)) key += `${String(fields[name])}/`;
    key += bucket;
    const held = tier.get(key);
    if (held === undefined) {
      tier.set(key, { ...row, bucket });
      continue;
    }
    for (const name in fields) if (added(name)) held[name] = (held[name] as number) + (fields[name] as number);
  }
  return [...tier.values()] as unknown as T[];
}

/**
 * The changes (clientTierChanges) folded into the buckets of `seconds` of the
 * SNR and band tiers: only wireless rows count, and in the band tier only
 * those with a band; a change that adds nothing is left out, so a client that
 * stays where it was writes no band row, and a device none of whose wireless
 * clients reported an SNR no SNR row. A band row whose count goes to 0 is
 * deleted after (dropEmptyClientBands).
 */
export function clientTierFolds(changes: readonly ClientTierRow[], seconds: number): { snr: ClientSnrChange[]; bands: ClientBandChange[] } {
  const wireless = changes.filter((row) => Boolean(row.is_wireless));
  const snr = coarsenSums(
    wireless.map((row): ClientSnrChange => ({ hardware_device_id: Number(row.hardware_device_id), bucket: Number(row.bucket), snr_count: row.snr_count, snr_sum: row.snr_sum })),
    seconds,
  ).filter((row) => row.snr_count !== 0 || row.snr_sum !== 0);
  const bands = coarsenSums(
    wireless
      .filter((row) => row.radio_band !== '')
      .map((row): ClientBandChange => ({
        network_id: Number(row.network_id),
        mac_address: row.mac_address,
        bucket: Number(row.bucket),
        hardware_device_id: Number(row.hardware_device_id),
        radio_band: row.radio_band,
        row_count: row.row_count,
      })),
    seconds,
  ).filter((row) => row.row_count !== 0);
  return { snr, bands };
}
