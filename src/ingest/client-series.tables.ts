import type { BoolColumn } from '../db/columns.js';

/** Ingest's client series: each report's client samples, their 5-minute rollups and the hourly and daily tiers. */
export interface ClientSeriesTables {
  /** A view (migration 0040): the rows of client_observation_sets' samples, one per client and report. */
  client_observations: ClientObservationTable;
  client_observation_sets: ClientObservationSetTable;
  /** activeClients' distinct clients (migration 0043), and their hourly and daily tiers: the same columns, coarser buckets. */
  client_presence_set_rollups: ClientPresenceSetTable;
  client_presence_set_rollups_hourly: ClientPresenceSetTable;
  client_presence_set_rollups_daily: ClientPresenceSetTable;
  client_metric_rollups: ClientMetricRollupTable;
  /** The hourly and daily tiers of client_metric_rollups (migration 0044), buckets a multiple of 3600 or 86400. */
  client_snr_rollups_hourly: ClientSnrTierTable;
  client_snr_rollups_daily: ClientSnrTierTable;
  client_band_rollups_hourly: ClientBandTierTable;
  client_band_rollups_daily: ClientBandTierTable;
}

/** A client's metrics as one report gave them (migration 0014); null when not reported, the wireless ones null for wired clients. */
export interface ClientSampleColumns {
  radio_band: string | null;
  channel: number | null;
  hw_mode: string | null;
  ssid: string | null;
  vlan_id: number | null;
  rx_bytes: number | null;
  tx_bytes: number | null;
}

export interface ClientObservationTable extends ClientSampleColumns {
  network_id: number;
  hardware_device_id: number;
  observed_at: string;
  mac_address: string;
  is_wireless: BoolColumn;
  signal: number | null;
  snr: number | null;
  rx_rate: number | null;
  tx_rate: number | null;
}

/**
 * The clients one report listed (migration 0040): `samples` is a JSON array
 * with one array per client, its fields in CLIENT_SAMPLE_FIELDS' order.
 */
export interface ClientObservationSetTable {
  network_id: number;
  hardware_device_id: number;
  observed_at: string;
  samples: string;
}

/**
 * One client's metrics on one device over one 5-minute bucket: sum and count
 * of each averaged metric, and the rest as the bucket's last sample gave them.
 */
export interface ClientMetricRollupTable extends ClientSampleColumns {
  network_id: number;
  hardware_device_id: number;
  mac_address: string;
  bucket: number;
  is_wireless: BoolColumn;
  observed_at: string;
  signal_sum: number;
  signal_count: number;
  snr_sum: number;
  snr_count: number;
  rx_rate_sum: number;
  rx_rate_count: number;
  tx_rate_sum: number;
  tx_rate_count: number;
  /** The bucket's first sample, and the counters' growth from it to the last (restarts counted whole). */
  first_observed_at: string;
  first_rx_bytes: number | null;
  first_tx_bytes: number | null;
  rx_growth: number;
  tx_growth: number;
}

/** The SNR count and sum of the 5-minute rows of a device's wireless clients in one tier bucket (migration 0044). */
export interface ClientSnrTierTable {
  hardware_device_id: number;
  bucket: number;
  snr_count: number;
  snr_sum: number;
}

/**
 * How many 5-minute rows of one wireless client in a network with one
 * device and band (their last sample's) a tier bucket holds (migration 0044);
 * at least one. hardware_device_id has no foreign key.
 */
export interface ClientBandTierTable {
  network_id: number;
  mac_address: string;
  bucket: number;
  hardware_device_id: number;
  radio_band: string;
  row_count: number;
}

/** The clients one device listed in one bucket of a network, by kind (migration 0043). */
export interface ClientPresenceSetTable {
  network_id: number;
  bucket: number;
  /** 0 for rows converted from the earlier layout or written by an earlier version during an upgrade (they named no device). */
  hardware_device_id: number;
  /** JSON arrays of the MAC addresses, sorted, each once. */
  wireless_macs: string;
  wired_macs: string;
}
