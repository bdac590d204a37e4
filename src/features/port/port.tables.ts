import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The port feature's table: each device port's latest state. */
export interface PortTables {
  device_ports: DevicePortTable;
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
  /** The report that set the port's current state: a report listing the port unchanged writes nothing. */
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
