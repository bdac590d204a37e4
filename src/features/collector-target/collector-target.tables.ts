import type { Generated } from 'kysely';

/** The collector target feature's table. */
export interface CollectorTargetTables {
  collector_targets: CollectorTargetTable;
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
