import type { RowColumn } from '../db/dialect.js';
import { CLIENT_AVERAGED_METRICS, OUTLET_METRICS, PORT_COUNTERS as COUNTERS, RADIO_UTILIZATION_METRICS, UPLINK_METRICS } from '../kernel/telemetry.js';

/**
 * The columns ingest writes in bulk, per table, with their types for the
 * dialect's rowSource (migration 0004 has the tables).
 */

export const RECEIPTS: readonly RowColumn[] = [
  ['company_id', 'bigint'],
  ['report_id', 'text'],
  ['hardware_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['received_at', 'timestamptz'],
];

const UPLINK_SAMPLES: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['port_number', 'integer'],
  ['observed_at', 'timestamptz'],
  ...UPLINK_METRICS.map((m): RowColumn => [m, 'float']),
];

const PORT_COUNTERS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['port_number', 'integer'],
  ['observed_at', 'timestamptz'],
  ['uptime_seconds', 'bigint'],
  ...COUNTERS.map((c): RowColumn => [c, 'bigint']),
];

/** A client's metrics beside the averaged ones (migration 0014): the last sample's in a rollup. */
const CLIENT_SAMPLE: readonly RowColumn[] = [
  ['radio_band', 'text'],
  ['channel', 'integer'],
  ['rx_bytes', 'bigint'],
  ['tx_bytes', 'bigint'],
  ['hw_mode', 'text'],
  ['ssid', 'text'],
  ['vlan_id', 'integer'],
];

/** One compact row of the clients a report listed (migration 0040). */
const CLIENT_OBSERVATION_SETS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['samples', 'text'],
];

/** The columns of a client metric rollup that an upsert merges on its own terms (the first sample, the growth). */
export const CLIENT_ROLLUP_SPAN: readonly RowColumn[] = [
  ['first_observed_at', 'timestamptz'],
  ['first_rx_bytes', 'bigint'],
  ['first_tx_bytes', 'bigint'],
  ['rx_growth', 'bigint'],
  ['tx_growth', 'bigint'],
];

/** Key columns first (3), then the rest: sums and counts add up, the last sample's columns come from the later one; the span last. */
export const CLIENT_METRIC_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['mac_address', 'text'],
  ['bucket', 'bigint'],
  ['network_id', 'bigint'],
  ['is_wireless', 'boolean'],
  ['observed_at', 'timestamptz'],
  ...CLIENT_AVERAGED_METRICS.flatMap((m): RowColumn[] => [
    [`${m}_sum`, 'float'],
    [`${m}_count`, 'bigint'],
  ]),
  ...CLIENT_SAMPLE,
  ...CLIENT_ROLLUP_SPAN,
];

/** A client SNR tier's columns (migration 0044): key columns first (2), then the count and sum, which an upsert adds up. */
export const CLIENT_SNR_TIER: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['bucket', 'bigint'],
  ['snr_count', 'integer'],
  ['snr_sum', 'float'],
];

/** A client band tier's columns (migration 0044): key columns first (5), then row_count, which an upsert adds up. */
export const CLIENT_BAND_TIER: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['mac_address', 'text'],
  ['bucket', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['radio_band', 'text'],
  ['row_count', 'integer'],
];

const CLIENT_PRESENCE: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['bucket', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['wireless_macs', 'text'],
  ['wired_macs', 'text'],
];

const RADIO_SAMPLES: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['radio_band', 'text'],
  ['observed_at', 'timestamptz'],
  ['channel', 'integer'],
  ['channel_width_mhz', 'integer'],
  ['tx_power_dbm', 'float'],
  ['noise_floor_dbm', 'float'],
  ...RADIO_UTILIZATION_METRICS.map((m): RowColumn => [m, 'float']),
];

const DNS_COUNTERS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['uptime_seconds', 'bigint'],
  ['requests', 'bigint'],
];

const RESOURCE_SAMPLES: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['cpu_percent', 'float'],
  ['memory_used_bytes', 'bigint'],
  ['memory_total_bytes', 'bigint'],
];

const EVENTS: readonly RowColumn[] = [
  ['uuid', 'uuid'],
  ['company_id', 'bigint'],
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['virtual_device_id', 'bigint'],
  ['type', 'text'],
  ['observed_at', 'timestamptz'],
  ['details', 'text'],
  ['source', 'text'],
];

const CLIENT_CONNECTION_EVENTS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['virtual_device_id', 'bigint'],
  ['mac_address', 'text'],
  ['type', 'text'],
  ['observed_at', 'timestamptz'],
  ['reason', 'text'],
];

const OUTLET_SAMPLES: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['outlet_number', 'integer'],
  ['observed_at', 'timestamptz'],
  ...OUTLET_METRICS.map((m): RowColumn => [m, 'float']),
  ['energy_kwh', 'float'],
];

const TEMPERATURE_SAMPLES: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['temperature_celsius', 'float'],
];

const IDS_DETECTIONS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['virtual_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['mode', 'text'],
  ['src_ip', 'text'],
  ['dst_ip', 'text'],
  ['protocol', 'text'],
  ['src_port', 'integer'],
  ['dst_port', 'integer'],
  ['direction', 'text'],
  ['signature', 'text'],
];

const FOREIGN_BSSID_OBSERVATIONS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['virtual_device_id', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['bssid', 'text'],
  ['ssid', 'text'],
  ['rssi', 'integer'],
  ['channel', 'integer'],
];

/** Tables ingest appends to, with their columns. */
export const BULK_COLUMNS = {
  uplink_samples: UPLINK_SAMPLES,
  port_counters: PORT_COUNTERS,
  client_observation_sets: CLIENT_OBSERVATION_SETS,
  client_presence_set_rollups: CLIENT_PRESENCE,
  radio_samples: RADIO_SAMPLES,
  dns_counters: DNS_COUNTERS,
  pdu_outlet_samples: OUTLET_SAMPLES,
  device_temperature_samples: TEMPERATURE_SAMPLES,
  resource_samples: RESOURCE_SAMPLES,
  ids_detections: IDS_DETECTIONS,
  foreign_bssid_observations: FOREIGN_BSSID_OBSERVATIONS,
  events: EVENTS,
  client_connection_events: CLIENT_CONNECTION_EVENTS,
} as const;

/** Key columns first (3), then each outlet metric's count and sum. */
export const OUTLET_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['outlet_number', 'integer'],
  ['bucket', 'bigint'],
  ...OUTLET_METRICS.flatMap((m): RowColumn[] => [
    [`${m}_count`, 'bigint'],
    [`${m}_sum`, 'float'],
  ]),
];

/** Key columns first (2), then the temperature's count and sum. */
export const TEMPERATURE_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['bucket', 'bigint'],
  ['temperature_celsius_count', 'bigint'],
  ['temperature_celsius_sum', 'float'],
];

export const UPLINK_ROLLUPS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['hardware_device_id', 'bigint'],
  ['port_number', 'integer'],
  ['bucket', 'bigint'],
  ...UPLINK_METRICS.flatMap((m): RowColumn[] => [
    [`${m}_count`, 'bigint'],
    [`${m}_sum`, 'float'],
    [`${m}_min`, 'float'],
    [`${m}_max`, 'float'],
  ]),
];

/** Key columns first (3), then what an upsert takes from the newer reading. */
export const COUNTER_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['port_number', 'integer'],
  ['bucket', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['uptime_seconds', 'bigint'],
  ...COUNTERS.map((c): RowColumn => [c, 'bigint']),
];

export const REPORT_ROLLUPS: readonly RowColumn[] = [
  ['network_id', 'bigint'],
  ['bucket', 'bigint'],
  ['report_count', 'bigint'],
];

/** Key columns first (3), then each utilization's sample count and sum, which an upsert adds up. */
export const RADIO_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['radio_band', 'text'],
  ['bucket', 'bigint'],
  ...RADIO_UTILIZATION_METRICS.flatMap((m): RowColumn[] => [
    [`${m}_count`, 'bigint'],
    [`${m}_sum`, 'float'],
  ]),
];

/** Key columns first (2), then what an upsert takes from the newer reading. */
export const DNS_COUNTER_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['bucket', 'bigint'],
  ['observed_at', 'timestamptz'],
  ['uptime_seconds', 'bigint'],
  ['requests', 'bigint'],
];

/** Key columns first (2), then the CPU and memory percentages' counts and sums, which an upsert adds up. */
export const RESOURCE_ROLLUPS: readonly RowColumn[] = [
  ['hardware_device_id', 'bigint'],
  ['bucket', 'bigint'],
  ['cpu_percent_count', 'bigint'],
  ['cpu_percent_sum', 'float'],
  ['memory_percent_count', 'bigint'],
  ['memory_percent_sum', 'float'],
];
