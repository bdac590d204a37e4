import type { Generated } from 'kysely';

/** Ingest's device series: the receipts of stored reports, each report's raw samples, their 5-minute rollups and the hourly and daily tiers. */
export interface SeriesTables {
  report_receipts: ReportReceiptTable;
  uplink_samples: UplinkSampleTable;
  port_counters: PortCounterTable;
  uplink_rollups: UplinkRollupTable;
  /** The hourly and daily tiers of uplink_rollups (migration 0030): its columns, buckets a multiple of 3600 or 86400, network_id never null. */
  uplink_rollups_hourly: UplinkRollupTable;
  uplink_rollups_daily: UplinkRollupTable;
  port_counter_rollups: PortCounterRollupTable;
  port_counter_rollups_hourly: PortCounterTierTable;
  port_counter_rollups_daily: PortCounterTierTable;
  report_rollups: ReportRollupTable;
  report_rollups_hourly: ReportRollupTable;
  report_rollups_daily: ReportRollupTable;
  radio_samples: RadioSampleTable;
  radio_rollups: RadioRollupTable;
  dns_counters: DnsCounterTable;
  dns_counter_rollups: DnsCounterRollupTable;
  dns_counter_rollups_hourly: DnsCounterTierTable;
  dns_counter_rollups_daily: DnsCounterTierTable;
  pdu_outlet_samples: PduOutletSampleTable;
  pdu_outlet_rollups: PduOutletRollupTable;
  device_temperature_samples: DeviceTemperatureSampleTable;
  device_temperature_rollups: DeviceTemperatureRollupTable;
  /** The hourly and daily tiers of radio_rollups, pdu_outlet_rollups and device_temperature_rollups (migration 0032): their columns, buckets a multiple of 3600 or 86400. */
  radio_rollups_hourly: RadioRollupTable;
  radio_rollups_daily: RadioRollupTable;
  pdu_outlet_rollups_hourly: PduOutletRollupTable;
  pdu_outlet_rollups_daily: PduOutletRollupTable;
  device_temperature_rollups_hourly: DeviceTemperatureRollupTable;
  device_temperature_rollups_daily: DeviceTemperatureRollupTable;
  resource_samples: ResourceSampleTable;
  resource_rollups: ResourceRollupTable;
  /** The hourly and daily tiers of resource_rollups (migration 0031): its columns, buckets a multiple of 3600 or 86400. */
  resource_rollups_hourly: ResourceRollupTable;
  resource_rollups_daily: ResourceRollupTable;
}

/** One stored report, by its reportId: what makes a retry a duplicate. */
export interface ReportReceiptTable {
  id: Generated<number>;
  company_id: number;
  report_id: string;
  hardware_device_id: number;
  observed_at: string;
  received_at: string;
}

export interface ReportRollupTable {
  network_id: number;
  bucket: number;
  report_count: number;
}

export interface UplinkSampleTable {
  network_id: number | null;
  hardware_device_id: number;
  port_number: number;
  observed_at: string;
  latency_ms: number | null;
  jitter_ms: number | null;
  loss_percent: number | null;
  rx_bps: number | null;
  tx_bps: number | null;
}

/** Count, sum, min and max of each uplink metric over one 5-minute bucket. */
export interface UplinkRollupTable {
  network_id: number | null;
  hardware_device_id: number;
  port_number: number;
  /** The bucket's start, in seconds since the epoch, a multiple of 300. */
  bucket: number;
  latency_ms_count: number;
  latency_ms_sum: number;
  latency_ms_min: number | null;
  latency_ms_max: number | null;
  jitter_ms_count: number;
  jitter_ms_sum: number;
  jitter_ms_min: number | null;
  jitter_ms_max: number | null;
  loss_percent_count: number;
  loss_percent_sum: number;
  loss_percent_min: number | null;
  loss_percent_max: number | null;
  rx_bps_count: number;
  rx_bps_sum: number;
  rx_bps_min: number | null;
  rx_bps_max: number | null;
  tx_bps_count: number;
  tx_bps_sum: number;
  tx_bps_min: number | null;
  tx_bps_max: number | null;
}

/** The six cumulative counters of a port reading. */
export interface CounterColumns {
  rx_bytes: number;
  tx_bytes: number;
  rx_packets: number;
  tx_packets: number;
  rx_errors: number;
  tx_errors: number;
}

export interface PortCounterTable extends CounterColumns {
  hardware_device_id: number;
  port_number: number;
  observed_at: string;
  uptime_seconds: number | null;
}

/** The last counter reading of a port in one 5-minute bucket. */
export interface PortCounterRollupTable extends CounterColumns {
  hardware_device_id: number;
  port_number: number;
  bucket: number;
  observed_at: string;
  uptime_seconds: number | null;
}

/**
 * An hourly or daily tier row of a port's counters (migration 0035): the
 * bucket's first and last 5-minute readings and the growth between
 * consecutive readings inside it (COUNTER_TIERED).
 */
export interface PortCounterTierTable extends PortCounterRollupTable {
  first_observed_at: string;
  first_uptime_seconds: number | null;
  first_rx_bytes: number;
  first_tx_bytes: number;
  first_rx_packets: number;
  first_tx_packets: number;
  first_rx_errors: number;
  first_tx_errors: number;
  rx_bytes_growth: number;
  tx_bytes_growth: number;
  rx_packets_growth: number;
  tx_packets_growth: number;
  rx_errors_growth: number;
  tx_errors_growth: number;
}

/** Utilization in percent of one radio sample; null: not reported. */
export interface RadioUtilizationColumns {
  total_utilization: number | null;
  rx_utilization: number | null;
  tx_utilization: number | null;
  self_utilization: number | null;
  obss_utilization: number | null;
  non_wifi_utilization: number | null;
}

/** One physical radio (band) of one report: its channel, width, power and utilization. */
export interface RadioSampleTable extends RadioUtilizationColumns {
  hardware_device_id: number;
  radio_band: string;
  observed_at: string;
  channel: number | null;
  channel_width_mhz: number | null;
  tx_power_dbm: number | null;
  noise_floor_dbm: number | null;
}

/** Sum and sample count of each utilization of one radio over one 5-minute bucket. */
export interface RadioRollupTable {
  hardware_device_id: number;
  radio_band: string;
  /** The bucket's start, in seconds since the epoch, a multiple of 300. */
  bucket: number;
  total_utilization_count: number;
  total_utilization_sum: number;
  rx_utilization_count: number;
  rx_utilization_sum: number;
  tx_utilization_count: number;
  tx_utilization_sum: number;
  self_utilization_count: number;
  self_utilization_sum: number;
  obss_utilization_count: number;
  obss_utilization_sum: number;
  non_wifi_utilization_count: number;
  non_wifi_utilization_sum: number;
}

/** A controller's cumulative DNS request counter, one reading per report. */
export interface DnsCounterTable {
  hardware_device_id: number;
  observed_at: string;
  uptime_seconds: number | null;
  requests: number;
}

/** The last DNS counter reading of a controller in one 5-minute bucket. */
export interface DnsCounterRollupTable extends DnsCounterTable {
  bucket: number;
}

/** An hourly or daily tier row of a controller's DNS counter (migration 0035), as PortCounterTierTable. */
export interface DnsCounterTierTable extends DnsCounterRollupTable {
  first_observed_at: string;
  first_uptime_seconds: number | null;
  first_requests: number;
  requests_growth: number;
}

/** A device's CPU and memory as one report gave them (migration 0019); a value the report left out is null. */
export interface ResourceSampleTable {
  hardware_device_id: number;
  observed_at: string;
  cpu_percent: number | null;
  memory_used_bytes: number | null;
  memory_total_bytes: number | null;
}

/** Sum and count of a device's CPU percentages and memory percentages (used / total) over one 5-minute bucket. */
export interface ResourceRollupTable {
  hardware_device_id: number;
  /** The bucket's start, in seconds since the epoch, a multiple of 300. */
  bucket: number;
  cpu_percent_count: number;
  cpu_percent_sum: number;
  memory_percent_count: number;
  memory_percent_sum: number;
}

/** A device's temperature of one report (raw series, migration 0016). */
export interface DeviceTemperatureSampleTable {
  hardware_device_id: number;
  observed_at: string;
  temperature_celsius: number;
}

/** A device's temperatures of one 5-minute bucket: their sum and count. */
export interface DeviceTemperatureRollupTable {
  hardware_device_id: number;
  bucket: number;
  temperature_celsius_count: number;
  temperature_celsius_sum: number;
}

/** One outlet reading of a report (raw series, migration 0016). */
export interface PduOutletSampleTable {
  hardware_device_id: number;
  outlet_number: number;
  observed_at: string;
  current_amps: number | null;
  power_watts: number | null;
  voltage_volts: number | null;
  energy_kwh: number | null;
  /** The growth of energy_kwh since the outlet's previous reading (the reading whole after a reset); null when none is known. */
  energy_used_kwh: number | null;
}

/** An outlet's readings of one 5-minute bucket: per metric the sum and the count of the readings that had it. */
export interface PduOutletRollupTable {
  hardware_device_id: number;
  outlet_number: number;
  /** The bucket's start, in seconds since the epoch, a multiple of 300. */
  bucket: number;
  current_amps_count: number;
  current_amps_sum: number;
  power_watts_count: number;
  power_watts_sum: number;
  voltage_volts_count: number;
  voltage_volts_sum: number;
  energy_used_kwh_count: number;
  energy_used_kwh_sum: number;
}
