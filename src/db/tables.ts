import type { Generated } from 'kysely';

/**
 * The tables as the query builder sees them. Booleans are 0/1 integers on
 * SQLite and timestamps are ISO 8601 strings on both stores (the drivers are
 * set up that way in db/); repositories turn rows into domain objects.
 */
export interface Database {
  companies: CompanyTable;
  networks: NetworkTable;
  virtual_devices: VirtualDeviceTable;
  hardware_devices: HardwareDeviceTable;
  vlans: VlanTable;
  ssids: SsidTable;
  network_clients: NetworkClientTable;
  api_keys: ApiKeyTable;
  foreign_ap_detections: ForeignApDetectionTable;
  api_request_log: ApiRequestLogTable;
  audit_log: AuditLogTable;
  users: UserTable;
  user_sessions: UserSessionTable;
  sign_in_failures: SignInFailureTable;
  report_receipts: ReportReceiptTable;
  device_ports: DevicePortTable;
  device_radios: DeviceRadioTable;
  switch_mac_entries: SwitchMacEntryTable;
  uplink_samples: UplinkSampleTable;
  port_counters: PortCounterTable;
  client_observations: ClientObservationTable;
  uplink_rollups: UplinkRollupTable;
  /** The hourly and daily tiers of uplink_rollups (migration 0030): its columns, buckets a multiple of 3600 or 86400, network_id never null. */
  uplink_rollups_hourly: UplinkRollupTable;
  uplink_rollups_daily: UplinkRollupTable;
  client_presence_rollups: ClientPresenceRollupTable;
  port_counter_rollups: PortCounterRollupTable;
  port_counter_rollups_hourly: PortCounterTierTable;
  port_counter_rollups_daily: PortCounterTierTable;
  client_metric_rollups: ClientMetricRollupTable;
  report_rollups: ReportRollupTable;
  /** The hourly and daily tiers of client_presence_rollups and report_rollups (migration 0030): their columns, coarser buckets. */
  client_presence_rollups_hourly: ClientPresenceRollupTable;
  client_presence_rollups_daily: ClientPresenceRollupTable;
  report_rollups_hourly: ReportRollupTable;
  report_rollups_daily: ReportRollupTable;
  radio_samples: RadioSampleTable;
  radio_rollups: RadioRollupTable;
  dns_counters: DnsCounterTable;
  dns_counter_rollups: DnsCounterRollupTable;
  dns_counter_rollups_hourly: DnsCounterTierTable;
  dns_counter_rollups_daily: DnsCounterTierTable;
  pdu_outlets: PduOutletTable;
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
  /** The hourly and daily tiers of client_metric_rollups (migration 0036), buckets a multiple of 3600 or 86400. */
  client_metric_rollups_hourly: ClientMetricTierTable;
  client_metric_rollups_daily: ClientMetricTierTable;
  resource_samples: ResourceSampleTable;
  resource_rollups: ResourceRollupTable;
  /** The hourly and daily tiers of resource_rollups (migration 0031): its columns, buckets a multiple of 3600 or 86400. */
  resource_rollups_hourly: ResourceRollupTable;
  resource_rollups_daily: ResourceRollupTable;
  ids_detections: IdsDetectionTable;
  foreign_bssid_observations: ForeignBssidObservationTable;
  client_sessions: ClientSessionTable;
  events: EventTable;
  client_connection_events: ClientConnectionEventTable;
  changes: ChangeTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_secrets: WebhookSecretTable;
  webhook_rules: WebhookRuleTable;
  webhook_client_counts: WebhookClientCountTable;
  webhook_messages: WebhookMessageTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_settings: WebhookSettingTable;
  blocked_clients: BlockedClientTable;
  firewall_rules: FirewallRuleTable;
  inter_vlan_pairs: InterVlanPairTable;
  ids_ips_configs: IdsIpsConfigTable;
  alert_receivers: AlertReceiverTable;
  alert_receiver_targets: AlertReceiverTargetTable;
  alert_receiver_rules: AlertReceiverRuleTable;
  collector_targets: CollectorTargetTable;
  collector_ranges: CollectorRangeTable;
  discovered_devices: DiscoveredDeviceTable;
}

/** A boolean column: true/false on PostgreSQL, 1/0 on SQLite. */
export type BoolColumn = boolean | number;

export interface CompanyTable {
  id: Generated<number>;
  uuid: string;
  slug: string;
  name: string;
  created_at: string;
  is_customer: Generated<BoolColumn>;
  website_domain: Generated<string | null>;
}

export interface NetworkTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  slug: string;
  label: string;
  is_active: BoolColumn;
  mailing_city: string | null;
  mailing_subdivision_code: string | null;
  created_at: string;
  mailing_line1: Generated<string | null>;
  mailing_line2: Generated<string | null>;
  mailing_postal_code: Generated<string | null>;
}

export interface VirtualDeviceTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  network_id: number;
  label: string;
  device_type: string;
  device_model: string;
  is_online: BoolColumn;
}

export interface HardwareDeviceTable {
  id: Generated<number>;
  company_id: number;
  serial_number: string;
  device_type: string;
  device_model: string;
  is_connected_to_backend: BoolColumn;
  virtual_device_id: number | null;
  /** The latest observedAt of the device's reports; null until the first. */
  last_seen_at: Generated<string | null>;
  /** Online as the offline checker last saw it; null until the first report (then is_connected_to_backend stands). */
  reported_online: Generated<BoolColumn | null>;
  uptime_seconds: Generated<number | null>;
  mac_address: Generated<string | null>;
  /** The observedAt of the report the latest state (ports, radios, clients, uptime, MAC) came from. */
  state_observed_at: Generated<string | null>;
  /** The network spare hardware is placed at; null when placed nowhere. */
  spare_network_id: Generated<number | null>;
  /** CPU load in percent from the latest report with one (migration 0013). */
  cpu_percent: Generated<number | null>;
  memory_used_bytes: Generated<number | null>;
  memory_total_bytes: Generated<number | null>;
  /** Where the latest report came from (migration 0022): COLLECTOR or REPORTS, the reporting key's label, the report's time. */
  source_kind: Generated<string | null>;
  source_name: Generated<string | null>;
  source_at: Generated<string | null>;
  /** A collector's last poll: its error (null when it answered) and duration. */
  source_poll_error: Generated<string | null>;
  source_poll_ms: Generated<number | null>;
}

export interface VlanTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  name: string;
  vlan_id: number;
  is_enabled: BoolColumn;
  is_default: Generated<BoolColumn>;
  description: Generated<string | null>;
  ipv4_client_gateway: Generated<string | null>;
  ipv4_client_prefix_length: Generated<number | null>;
  /** DHCP or STATIC; null when not configured. */
  ipv4_client_assignment_protocol: Generated<string | null>;
}

export interface SsidTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  ssid: string;
  is_enabled: BoolColumn;
  is_guest: Generated<BoolColumn>;
  is_hidden: Generated<BoolColumn>;
  encryption_protocol: Generated<string | null>;
  /** The VLAN number (vlans.vlan_id in the same network) the SSID puts its clients on; null: none. */
  vlan_id: Generated<number | null>;
}

export interface NetworkClientTable {
  id: Generated<number>;
  network_id: number;
  mac_address: string;
  ip: string | null;
  last_seen: string;
  is_connected: BoolColumn;
  hostname: Generated<string | null>;
  is_wireless: Generated<BoolColumn>;
  signal: Generated<number | null>;
  vlan_id: Generated<number | null>;
  ssid: Generated<string | null>;
  port_number: Generated<number | null>;
  /** The device whose report listed the client last; null for imported clients. */
  hardware_device_id: Generated<number | null>;
}

export interface ApiKeyTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  label: string;
  prefix: string;
  secret_hash: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** When the key stops working; NULL for never. */
  expires_at: string | null;
  /** Canonical CIDRs separated by spaces; NULL for any address. */
  allowed_addresses: string | null;
  /** The client address of the use last_used_at records. */
  last_used_address: string | null;
  /** When this key's API_KEY_EXPIRING alert was claimed (migration 0025); NULL: not yet. */
  expiry_alerted_at: string | null;
}

/** When a rule (ROGUE or HONEYPOT) last selected a foreign BSSID heard in a network (migration 0025). */
export interface ForeignApDetectionTable {
  network_id: number;
  kind: string;
  bssid: string;
  last_detected_at: string;
}

/** One entry per write or key event, written in the change's own transaction. */
export interface AuditLogTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  occurred_at: string;
  /** api_key, user or cli. */
  actor_type: string;
  /** The API key's or dashboard user's UUID; null for the CLI. */
  actor_id: string | null;
  actor_label: string;
  action: string;
  object_type: string;
  object_id: string;
  /** JSON text of the object before the change; null for a create. */
  before: string | null;
  /** JSON text of the object after the change; null for a delete. */
  after: string | null;
  /** When the webhook dispatcher turned it into AUDIT_LOG messages; null until then. */
  dispatched_at: string | null;
}

export interface UserTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  email: string;
  role: string;
  password_hash: string;
  created_at: string;
}

export interface UserSessionTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

export interface SignInFailureTable {
  id: Generated<number>;
  subject: string;
  failed_at: string;
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

/** A device's port as its latest report with interfaces listed it. */
export interface DevicePortTable {
  id: Generated<number>;
  uuid: string;
  hardware_device_id: number;
  port_number: number;
  label: string | null;
  port_type: string | null;
  is_enabled: BoolColumn;
  is_connected: BoolColumn;
  is_uplink: BoolColumn;
  is_uplink_active: BoolColumn | null;
  is_trunk_port: BoolColumn;
  port_speed_mbps: number | null;
  native_vlan_id: number | null;
  observed_at: string;
  /** The LLDP neighbour the port sees (migration 0013); null when none. */
  lldp_chassis_id: Generated<string | null>;
  lldp_port_id: Generated<string | null>;
  lldp_port_description: Generated<string | null>;
  lldp_system_name: Generated<string | null>;
  /** The port's spanning-tree state as reported (migration 0034): DISABLED, BLOCKING, LISTENING, LEARNING, FORWARDING, BROKEN; null when not reported. */
  stp_state: Generated<string | null>;
  /** The block alert the port has open (migration 0034): BLOCKED, STP_ERROR, or null (docs/alerts.md). */
  stp_alert: Generated<string | null>;
}

/** A device's radio (BSSID) as its latest report with radios listed it. */
export interface DeviceRadioTable {
  id: Generated<number>;
  hardware_device_id: number;
  bssid: string;
  radio_band: string;
  ssid: string | null;
  is_active: BoolColumn;
  observed_at: string;
}

/** A switch's MAC forwarding table entry, from its latest report with `macTable` (migration 0012). */
export interface SwitchMacEntryTable {
  hardware_device_id: number;
  mac_address: string;
  /** 0: the bridge has no VLANs. */
  vlan_id: number;
  port_number: number;
  /** The observedAt of the report that first listed the entry on this port. */
  updated_at: string;
}

/** A PDU's outlet as its latest report with `outlets` listed it (migration 0016). */
export interface PduOutletTable {
  hardware_device_id: number;
  outlet_number: number;
  label: string | null;
  is_on: BoolColumn | null;
  current_amps: number | null;
  power_watts: number | null;
  voltage_volts: number | null;
  energy_kwh: number | null;
  observed_at: string;
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

/**
 * The 5-minute client metric rollups of one tier bucket that share a device,
 * client, network, kind and band (their last sample's; '' for none): how many
 * (row_count), and the sums and counts of their averaged metrics.
 */
export interface ClientMetricTierTable {
  hardware_device_id: number;
  bucket: number;
  mac_address: string;
  network_id: number;
  is_wireless: BoolColumn;
  radio_band: string;
  row_count: number;
  signal_count: number;
  signal_sum: number;
  snr_count: number;
  snr_sum: number;
  rx_rate_count: number;
  rx_rate_sum: number;
  tx_rate_count: number;
  tx_rate_sum: number;
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

export interface ClientPresenceRollupTable {
  network_id: number;
  bucket: number;
  mac_address: string;
  is_wireless: BoolColumn;
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

/** An IDS/IPS detection a controller reported (migration 0021), in its network's mode when it was ingested. */
export interface IdsDetectionTable {
  network_id: number;
  hardware_device_id: number;
  virtual_device_id: number | null;
  observed_at: string;
  /** 'IDS' or 'IPS' (docs/schema.md). */
  mode: string;
  src_ip: string;
  dst_ip: string;
  protocol: string;
  src_port: number | null;
  dst_port: number | null;
  /** 'RX' or 'TX' (TrafficDirection). */
  direction: string;
  signature: string | null;
}

/** A BSSID of no access point of the network that one of its access points heard (migration 0021). */
export interface ForeignBssidObservationTable {
  network_id: number;
  hardware_device_id: number;
  virtual_device_id: number | null;
  observed_at: string;
  bssid: string;
  /** Null for a hidden network. */
  ssid: string | null;
  rssi: number;
  channel: number | null;
}

/** A device's CPU and memory as one report gave them (migration 0019); a value the report left out is null. */
export interface ResourceSampleTable {
  hardware_device_id: number;
  observed_at: string;
  cpu_percent: number | null;
  memory_used_bytes: number | null;
  memory_total_bytes: number | null;
}

/** One request made with an API key (migration 0020; features/request-log); partitioned by day on PostgreSQL. */
export interface ApiRequestLogTable {
  requested_at: string;
  api_key_id: number;
  request_id: string;
  method: string;
  path: string;
  operation_name: string | null;
  root_fields: string | null;
  status: number;
  error_codes: string | null;
  cost: number | null;
  duration_ms: number;
  statements: number;
  client_address: string | null;
  user_agent: string | null;
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

export interface ReportRollupTable {
  network_id: number;
  bucket: number;
  report_count: number;
}

/** One stretch of a client on one device of a network; ended_at null while it lasts. */
export interface ClientSessionTable {
  id: Generated<number>;
  network_id: number;
  mac_address: string;
  hardware_device_id: number | null;
  ssid: string | null;
  vlan_id: number | null;
  signal: number | null;
  ip: string | null;
  hostname: string | null;
  first_seen: string;
  last_seen: string;
  ended_at: string | null;
}

/** One entry of a network's event log: a device's own, or DEVICE_ONLINE / DEVICE_OFFLINE from netgraph. */
export interface EventTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  network_id: number | null;
  hardware_device_id: number | null;
  virtual_device_id: number | null;
  type: string;
  observed_at: string;
  /** JSON text, or null. */
  details: string | null;
  /** device or netgraph. */
  source: string;
  /** When the webhook dispatcher turned it into messages; null until then (docs/webhooks.md). */
  dispatched_at: string | null;
}

/** A wireless client's connection event as an access point reported it (migration 0024). */
export interface ClientConnectionEventTable {
  id: Generated<number>;
  network_id: number;
  hardware_device_id: number;
  virtual_device_id: number | null;
  mac_address: string;
  /** One of CLIENT_CONNECTION_EVENT_TYPES. */
  type: string;
  observed_at: string;
  reason: string | null;
}

/**
 * One change of the change feed (docs/changes.md). `txid`: the writing
 * transaction's id on PostgreSQL (the column's default), 0 on SQLite.
 */
export interface ChangeTable {
  id: Generated<number>;
  txid: Generated<string | number>;
  company_id: number;
  object_type: string;
  /** A UUID, or a hardware device's serial number. */
  object_id: string;
  /** CREATED, UPDATED, DELETED, ONLINE or OFFLINE. */
  kind: string;
  changed_at: string;
  /** JSON text of the object's fields after the change; null for DELETED. */
  fields: string | null;
  /** The UUID of the audit entry or event that wrote it (migration 0026); null before that. */
  source_uuid: string | null;
}

/** A webhook endpoint of a company; auth_value is encrypted (webhook.cipher.ts). */
export interface WebhookEndpointTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  label: string;
  url: string;
  enabled: BoolColumn;
  /** none, basic or bearer. */
  auth_kind: string;
  auth_value: string | null;
  /** GONE or FAILING when netgraph turned the endpoint off; null otherwise. */
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  /** webhook (the API's endpoints), email or slack (an alert receiver's target: docs/alerts.md). */
  channel: Generated<string>;
  /** standard or meter: the body a webhook endpoint's messages carry. */
  payload_format: Generated<string>;
  /** An email channel's address; a slack channel's incoming-webhook URL, encrypted; null for webhooks. */
  target: string | null;
}

/** A signing secret of an endpoint, encrypted; expires_at null for the current one. */
export interface WebhookSecretTable {
  id: Generated<number>;
  endpoint_id: number;
  secret: string;
  created_at: string;
  expires_at: string | null;
}

/** Which alerts of which networks (null: all) go to an endpoint. */
export interface WebhookRuleTable {
  id: Generated<number>;
  endpoint_id: number;
  company_id: number;
  alert_type: string;
  network_id: number | null;
  threshold: number | null;
}

/** A CLIENT_COUNT_ABOVE rule's state per network, so each upward crossing fires once. */
export interface WebhookClientCountTable {
  rule_id: number;
  network_id: number;
  above: BoolColumn;
}

/** One message of the outbox to one endpoint; uuid is its webhook-id. */
export interface WebhookMessageTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  endpoint_id: number;
  alert_type: string;
  payload: string;
  created_at: string;
  /** pending, delivered or failed. */
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  lease_token: string | null;
  lease_until: string | null;
}

/** One delivery attempt of a message. */
export interface WebhookAttemptTable {
  id: Generated<number>;
  message_id: number;
  attempted_at: string;
  status: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
}

/** Settings webhooks keep in the database (the generated encryption key). */
export interface WebhookSettingTable {
  name: string;
  value: string;
}

/** A client MAC address blocked on a network. */
export interface BlockedClientTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  mac_address: string;
  reason: string | null;
  created_at: string;
}

/** A firewall rule of a network; priority is unique per network, lower first. */
export interface FirewallRuleTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  name: string;
  description: string | null;
  action: string;
  is_enabled: BoolColumn;
  src_prefix: string | null;
  dst_prefix: string | null;
  priority: number;
}

/** Two VLANs of a network allowed to talk; the smaller VLAN row id first. */
export interface InterVlanPairTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  vlan_low_id: number;
  vlan_high_id: number;
}

/** A network's IDS/IPS mode; no row: not configured. */
export interface IdsIpsConfigTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  mode: string;
}

/** An alert receiver of a company (docs/alerts.md). */
export interface AlertReceiverTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  label: string;
  created_at: string;
  updated_at: string;
}

/** A target of a receiver: WEBHOOK, EMAIL or SLACK, delivered through the endpoint row endpoint_id. */
export interface AlertReceiverTargetTable {
  id: Generated<number>;
  uuid: string;
  receiver_id: number;
  company_id: number;
  type: string;
  endpoint_id: number;
  created_at: string;
}

/** Which alerts of which networks (null: all) go to a receiver's targets. */
export interface AlertReceiverRuleTable {
  id: Generated<number>;
  receiver_id: number;
  company_id: number;
  alert_type: string;
  network_id: number | null;
}

/** A device a company's collectors poll (migration 0022); `credentials` is the sealed JSON of its SNMP secrets. */
export interface CollectorTargetTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  virtual_device_id: number;
  host: string;
  port: number;
  snmp_version: string;
  snmp_user: string | null;
  snmp_level: string | null;
  auth_protocol: string | null;
  priv_protocol: string | null;
  credentials: string;
  interval_seconds: number;
  uplinks: string;
  uplink_probes: string;
  created_at: string;
  updated_at: string;
}

/** A range a company's collectors sweep for SNMP agents (migration 0037); `credentials` sealed as a target's; `api_key_id` null: every collector of the company. */
export interface CollectorRangeTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  api_key_id: number | null;
  cidr: string;
  port: number;
  snmp_version: string;
  snmp_user: string | null;
  snmp_level: string | null;
  auth_protocol: string | null;
  priv_protocol: string | null;
  credentials: string;
  rate_per_second: number;
  interval_seconds: number;
  created_at: string;
  updated_at: string;
}

/** An SNMP agent a company's collectors found in a sweep (migration 0027); one per company and address. */
export interface DiscoveredDeviceTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  address: string;
  sys_name: string | null;
  sys_descr: string | null;
  sys_object_id: string | null;
  vendor: string | null;
  model: string | null;
  serial_number: string | null;
  snmp_version: string;
  /** NEW, ADOPTED or IGNORED. */
  state: string;
  virtual_device_id: number | null;
  first_seen_at: string;
  last_seen_at: string;
  /** The label of the ingest key that posted it last (migration 0033); null for rows posted before. */
  collector_name: Generated<string | null>;
}
