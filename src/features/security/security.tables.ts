import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The security feature's tables: foreign APs, IDS/IPS, blocked clients, firewall rules, inter-VLAN pairs. */
export interface SecurityTables {
  foreign_ap_detections: ForeignApDetectionTable;
  ids_detections: IdsDetectionTable;
  foreign_bssid_observations: ForeignBssidObservationTable;
  blocked_clients: BlockedClientTable;
  firewall_rules: FirewallRuleTable;
  inter_vlan_pairs: InterVlanPairTable;
  ids_ips_configs: IdsIpsConfigTable;
}

/** When a rule (ROGUE or HONEYPOT) last selected a foreign BSSID heard in a network (migration 0025). */
export interface ForeignApDetectionTable {
  network_id: number;
  kind: string;
  bssid: string;
  last_detected_at: string;
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
