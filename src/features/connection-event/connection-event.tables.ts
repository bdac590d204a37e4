import type { Generated } from 'kysely';

/** The connection event feature's table. */
export interface ConnectionEventTables {
  client_connection_events: ClientConnectionEventTable;
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
