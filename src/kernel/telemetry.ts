// The words of device telemetry that ingest, retention, the partitions and
// the series reads share (docs/reports.md, "Time series" and "Retention").
// Migrations keep their own literal copies: they are history.

/** The width of a rollup bucket, in seconds: buckets start at multiples of it since the epoch (5 minutes). */
export const ROLLUP_SECONDS = 300;

/** The raw time series: tables with an observed_at (client samples: their compact rows, migration 0040), kept TELEMETRY_RAW_RETENTION_HOURS, partitioned by day on PostgreSQL. */
export const RAW_SERIES_TABLES = ['uplink_samples', 'port_counters', 'client_observation_sets', 'radio_samples', 'dns_counters', 'pdu_outlet_samples', 'device_temperature_samples', 'resource_samples', 'ids_detections', 'foreign_bssid_observations'] as const;

/** The uplink metrics a sample carries and a rollup aggregates: the columns of uplink_samples and column prefixes of uplink_rollups. */
export const UPLINK_METRICS = ['latency_ms', 'jitter_ms', 'loss_percent', 'rx_bps', 'tx_bps'] as const;
/** One of UPLINK_METRICS. */
export type UplinkMetric = (typeof UPLINK_METRICS)[number];

/**
 * A client sample's fields in the order a row of client_observation_sets
 * holds them (migration 0040): `samples` has one array of these per client a
 * report listed, is_wireless as 0 or 1, without its trailing nulls (a field
 * past the array's end reads as null), so the fields most clients have come
 * first; the client_observations view has them as columns.
 */
export const CLIENT_SAMPLE_FIELDS = ['mac_address', 'is_wireless', 'signal', 'vlan_id', 'ssid', 'radio_band', 'channel', 'snr', 'rx_rate', 'tx_rate', 'rx_bytes', 'tx_bytes', 'hw_mode'] as const;

/** The client metrics a 5-minute rollup averages (sum and count): columns of client_observations, column prefixes of client_metric_rollups. */
export const CLIENT_AVERAGED_METRICS = ['signal', 'snr', 'rx_rate', 'tx_rate'] as const;

/**
 * The utilization metrics (percent of the report interval) a radio sample
 * carries and a radio rollup aggregates: the columns of radio_samples and
 * column prefixes (`_sum`, `_count`) of radio_rollups.
 */
export const RADIO_UTILIZATION_METRICS = [
  'total_utilization',
  'rx_utilization',
  'tx_utilization',
  'self_utilization',
  'obss_utilization',
  'non_wifi_utilization',
] as const;
/** One of RADIO_UTILIZATION_METRICS. */
export type RadioUtilizationMetric = (typeof RADIO_UTILIZATION_METRICS)[number];

/**
 * The outlet metrics a PDU's sample carries and its 5-minute rollup sums:
 * columns of pdu_outlet_samples and column prefixes (`_sum`, `_count`) of
 * pdu_outlet_rollups. `energy_used_kwh` is the growth of the outlet's energy
 * counter since its previous reading (worked out at ingest); the counter
 * itself is kept raw only.
 */
export const OUTLET_METRICS = ['current_amps', 'power_watts', 'voltage_volts', 'energy_used_kwh'] as const;
/** One of OUTLET_METRICS. */
export type OutletMetric = (typeof OUTLET_METRICS)[number];

/** The width of an hourly tier bucket, in seconds (buckets start at multiples of it since the epoch). */
export const HOURLY_SECONDS = 3_600;
/** The width of a daily tier bucket, in seconds: UTC days. */
export const DAILY_SECONDS = 86_400;

/**
 * The tiers of a tiered rollup, coarsest first: each tier's bucket width and
 * table. The hourly and daily tables have the 5-minute table's columns, and
 * each of their rows holds exactly the sums, counts, minimum and maximum of
 * the 5-minute rows inside its bucket (folded at ingest, in the same
 * transaction), so any tier answers a bucket it covers as the finer ones do.
 */
export interface RollupTier {
  readonly seconds: number;
  readonly table: string;
}

/** The uplink rollups' tiers (migration 0030): daily, hourly, 5-minute. */
export const UPLINK_TIERS = [
  { seconds: DAILY_SECONDS, table: 'uplink_rollups_daily' },
  { seconds: HOURLY_SECONDS, table: 'uplink_rollups_hourly' },
  { seconds: ROLLUP_SECONDS, table: 'uplink_rollups' },
] as const satisfies readonly RollupTier[];

/**
 * activeClients' tiers of distinct clients (migration 0043): per network,
 * bucket and device, the MAC addresses of the clients listed, wireless and
 * wired, as two sorted JSON arrays of text.
 */
export const PRESENCE_TIERS = [
  { seconds: DAILY_SECONDS, table: 'client_presence_set_rollups_daily' },
  { seconds: HOURLY_SECONDS, table: 'client_presence_set_rollups_hourly' },
  { seconds: ROLLUP_SECONDS, table: 'client_presence_set_rollups' },
] as const satisfies readonly RollupTier[];

/** activeClients' tiers of the report counts per network and bucket (migration 0030). */
export const REPORT_COUNT_TIERS = [
  { seconds: DAILY_SECONDS, table: 'report_rollups_daily' },
  { seconds: HOURLY_SECONDS, table: 'report_rollups_hourly' },
  { seconds: ROLLUP_SECONDS, table: 'report_rollups' },
] as const satisfies readonly RollupTier[];

/** The CPU and memory rollups' tiers (migration 0031): daily, hourly, 5-minute. */
export const RESOURCE_TIERS = [
  { seconds: DAILY_SECONDS, table: 'resource_rollups_daily' },
  { seconds: HOURLY_SECONDS, table: 'resource_rollups_hourly' },
  { seconds: ROLLUP_SECONDS, table: 'resource_rollups' },
] as const satisfies readonly RollupTier[];
/** True for an hourly or daily tier's table (named `<rollup>_hourly`, `<rollup>_daily`), false for a 5-minute or raw one. */
export const isCoarseTier = (table: string): boolean => /_(hourly|daily)$/.test(table);

/**
 * A 5-minute rollup that has hourly and daily tiers (migrations 0032, 0035
 * and 0044), named `<coarse>_hourly` and `<coarse>_daily` (`coarse` is the
 * rollup's own name unless given): its tiers.
 */
const sumTiers = <T extends string, C extends string = T>(table: T, coarse?: C) =>
  [
    { seconds: DAILY_SECONDS, table: `${coarse ?? table}_daily` },
    { seconds: HOURLY_SECONDS, table: `${coarse ?? table}_hourly` },
    { seconds: ROLLUP_SECONDS, table },
  ] as const satisfies readonly RollupTier[];

/** The radio utilization rollups' tiers (migration 0032): channelUtilizationByNetwork and channelUtilizationByAP. */
export const RADIO_TIERS = sumTiers('radio_rollups');
/** The PDU outlet rollups' tiers (migration 0032): pduMetrics and pdusMetrics. */
export const OUTLET_TIERS = sumTiers('pdu_outlet_rollups');
/** The device temperature rollups' tiers (migration 0032): pduMetrics and pdusMetrics. */
export const TEMPERATURE_TIERS = sumTiers('device_temperature_rollups');
/**
 * The client metric rollups' tiers as their two readers use them (migration
 * 0044; docs/metrics.md, "Tiers"), each above the 5-minute rows: the SNR
 * count and sum of a device's wireless clients per hour or day
 * (apHealthScores), and the devices and bands a wireless client was on
 * (channelUtilizationByClient). The client metrics roots read the 5-minute
 * rows only.
 */
export const CLIENT_SNR_TIERS = sumTiers('client_metric_rollups', 'client_snr_rollups');
export const CLIENT_BAND_TIERS = sumTiers('client_metric_rollups', 'client_band_rollups');

/** The six cumulative counters of a port: columns of port_counters, port_counter_rollups and its tiers. */
export const PORT_COUNTERS = ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_errors', 'tx_errors'] as const;

/**
 * The 5-minute rollups of cumulative counters that have hourly and daily
 * tiers (migration 0035), with their key columns besides hardware_device_id
 * and bucket, and their counters. A 5-minute row is the bucket's last
 * reading; a tier row stands for the run of 5-minute readings inside its
 * bucket: its first reading (`first_observed_at`, `first_uptime_seconds`,
 * `first_<counter>`), its last (`observed_at`, `uptime_seconds`,
 * `<counter>`) and the growth between consecutive readings inside it
 * (`<counter>_growth`, a reading after a reboot counted whole). A read joins
 * it to the reading before it as it would join the readings it stands for.
 */
export const COUNTER_TIERED = {
  port_counter_rollups: { keys: ['port_number'], counters: PORT_COUNTERS },
  dns_counter_rollups: { keys: [], counters: ['requests'] },
} as const satisfies Record<string, { keys: readonly string[]; counters: readonly string[] }>;
/** One of the rollups of COUNTER_TIERED. */
export type CounterTiered = keyof typeof COUNTER_TIERED;

/** The port counter rollups' tiers (migration 0035): switchPortMetricsRate, controllerPortMetricsRate, switchPortStats and controllerPortStats. */
export const PORT_COUNTER_TIERS = sumTiers('port_counter_rollups');
/** The DNS counter rollups' tiers (migration 0035): controllerDNSRequestRates. */
export const DNS_COUNTER_TIERS = sumTiers('dns_counter_rollups');

/**
 * How long telemetry is kept unless configured (TELEMETRY_RAW_RETENTION_HOURS,
 * TELEMETRY_ROLLUP_RETENTION_DAYS, TELEMETRY_HOURLY_RETENTION_DAYS,
 * TELEMETRY_DAILY_RETENTION_DAYS, EVENT_RETENTION_DAYS): raw samples, the
 * 5-minute rollups, the hourly and daily tiers, and events with client
 * history. The 5-minute rollups are kept a week: a step of whole hours or
 * days reads the tiers, kept longer; the client metrics series, which no
 * tier can answer exactly, reach back as far as the 5-minute rollups
 * (docs/metrics.md, "Tiers").
 */
export const RETENTION_DEFAULTS = { rawRetentionHours: 48, rollupRetentionDays: 7, hourlyRetentionDays: 90, dailyRetentionDays: 400, eventRetentionDays: 90 } as const;
