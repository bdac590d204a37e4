import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The SSID feature's table. */
export interface SsidTables {
  ssids: SsidTable;
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
