import { AP_HEALTH_FEATURE } from '../features/ap-health/ap-health.graphql.js';
import { ALERT_FEATURE } from '../features/alert/alert.graphql.js';
import { BSSID_FEATURE } from '../features/bssid/bssid.graphql.js';
import { CHANGE_FEATURE } from '../features/change/change.graphql.js';
import { CHANNEL_UTILIZATION_FEATURE } from '../features/channel-utilization/channel-utilization.graphql.js';
import { CLIENT_CHANNEL_FEATURE } from '../features/channel-utilization/client-channel.graphql.js';
import { CLIENT_FEATURE } from '../features/client/client.graphql.js';
import { CLIENT_METRICS_FEATURE } from '../features/client-metrics/client-metrics.graphql.js';
import { COLLECTOR_TARGET_FEATURE } from '../features/collector-target/collector-target.graphql.js';
import { COLLECTOR_RANGE_FEATURE } from '../features/collector-range/collector-range.graphql.js';
import { DISCOVERED_DEVICE_FEATURE } from '../features/discovered-device/discovered-device.graphql.js';
import { CONNECTION_EVENT_FEATURE } from '../features/connection-event/connection-event.graphql.js';
import { COMPANY_FEATURE } from '../features/company/company.graphql.js';
import { DEVICE_FEATURE } from '../features/device/device.graphql.js';
import { SPARE_HARDWARE_FEATURE } from '../features/device/spare-hardware.graphql.js';
import { DNS_RATES_FEATURE } from '../features/dns-rates/dns-rates.graphql.js';
import { EVENT_FEATURE } from '../features/event/event.graphql.js';
import { MAC_TABLE_FEATURE } from '../features/mac-table/mac-table.graphql.js';
import { METRICS_FEATURE } from '../features/metrics/metrics.graphql.js';
import { NETWORK_FEATURE } from '../features/network/network.graphql.js';
import { PORT_FEATURE } from '../features/port/port.graphql.js';
import { PORT_STATS_FEATURE } from '../features/port-stats/port-stats.graphql.js';
import { PDU_FEATURE } from '../features/pdu/pdu.graphql.js';
import { BLOCKED_CLIENT_FEATURE } from '../features/security/blocked-client.graphql.js';
import { FIREWALL_RULE_FEATURE } from '../features/security/firewall-rule.graphql.js';
import { IDS_IPS_FEATURE } from '../features/security/ids-ips.graphql.js';
import { IDS_EVENTS_FEATURE } from '../features/security/ids-events.graphql.js';
import { FOREIGN_AP_FEATURE } from '../features/security/foreign-ap.graphql.js';
import { INTER_VLAN_FEATURE } from '../features/security/inter-vlan.graphql.js';
import { TOPOLOGY_FEATURE } from '../features/topology/topology.graphql.js';
import { SSID_FEATURE } from '../features/ssid/ssid.graphql.js';
import { VLAN_FEATURE } from '../features/vlan/vlan.graphql.js';
import { WEBHOOK_FEATURE } from '../features/webhook/webhook.graphql.js';

/**
 * Every feature that owns GraphQL types: the one list the schema, the read
 * model and the mutation resolvers are assembled from. Types, Mutation
 * fields, inputs and payloads print in schema.graphql in this order.
 */
export const FEATURES = [
  COMPANY_FEATURE,
  NETWORK_FEATURE,
  DEVICE_FEATURE,
  CLIENT_FEATURE,
  VLAN_FEATURE,
  SSID_FEATURE,
  PORT_FEATURE,
  BSSID_FEATURE,
  METRICS_FEATURE,
  PORT_STATS_FEATURE,
  CLIENT_METRICS_FEATURE,
  CHANNEL_UTILIZATION_FEATURE,
  CLIENT_CHANNEL_FEATURE,
  DNS_RATES_FEATURE,
  AP_HEALTH_FEATURE,
  MAC_TABLE_FEATURE,
  PDU_FEATURE,
  TOPOLOGY_FEATURE,
  EVENT_FEATURE,
  CONNECTION_EVENT_FEATURE,
  BLOCKED_CLIENT_FEATURE,
  FIREWALL_RULE_FEATURE,
  INTER_VLAN_FEATURE,
  IDS_IPS_FEATURE,
  IDS_EVENTS_FEATURE,
  FOREIGN_AP_FEATURE,
  SPARE_HARDWARE_FEATURE,
  WEBHOOK_FEATURE,
  ALERT_FEATURE,
  COLLECTOR_TARGET_FEATURE,
  COLLECTOR_RANGE_FEATURE,
  DISCOVERED_DEVICE_FEATURE,
  CHANGE_FEATURE,
] as const;

type RootsOf<F> = F extends { readonly roots: infer R } ? keyof R & string : never;

/** The name of every Query field: each is a read root of one feature. */
export type QueryRootName = RootsOf<(typeof FEATURES)[number]>;
