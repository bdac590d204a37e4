import type { Generated } from 'kysely';
import type { BoolColumn } from '../../db/columns.js';

/** The client feature's tables: a network's clients and their stretches on devices. */
export interface ClientTables {
  network_clients: NetworkClientTable;
  client_sessions: ClientSessionTable;
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
