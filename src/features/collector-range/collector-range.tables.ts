import type { Generated } from 'kysely';

/** The collector range feature's table. */
export interface CollectorRangeTables {
  collector_ranges: CollectorRangeTable;
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
