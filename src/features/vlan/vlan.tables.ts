import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The VLAN feature's table. */
export interface VlanTables {
  vlans: VlanTable;
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
