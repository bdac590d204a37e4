import type { Generated } from 'kysely';

/** The discovered device feature's table. */
export interface DiscoveredDeviceTables {
  discovered_devices: DiscoveredDeviceTable;
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
