import type { Generated } from 'kysely';

/**
 * The tables as the query builder sees them. Booleans are 0/1 integers on
 * SQLite and timestamps are ISO 8601 strings on both stores (the drivers are
 * set up that way in db/); repositories turn rows into domain objects.
 */
export interface Database {
  companies: CompanyTable;
  networks: NetworkTable;
  virtual_devices: VirtualDeviceTable;
  hardware_devices: HardwareDeviceTable;
  vlans: VlanTable;
  ssids: SsidTable;
  network_clients: NetworkClientTable;
  api_keys: ApiKeyTable;
  audit_log: AuditLogTable;
  users: UserTable;
  user_sessions: UserSessionTable;
  sign_in_failures: SignInFailureTable;
}

/** A boolean column: true/false on PostgreSQL, 1/0 on SQLite. */
export type BoolColumn = boolean | number;

export interface CompanyTable {
  id: Generated<number>;
  uuid: string;
  slug: string;
  name: string;
  created_at: string;
}

export interface NetworkTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  slug: string;
  label: string;
  is_active: BoolColumn;
  mailing_city: string | null;
  mailing_subdivision_code: string | null;
  created_at: string;
}

export interface VirtualDeviceTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  network_id: number;
  label: string;
  device_type: string;
  device_model: string;
  is_online: BoolColumn;
}

export interface HardwareDeviceTable {
  id: Generated<number>;
  company_id: number;
  serial_number: string;
  device_type: string;
  device_model: string;
  is_connected_to_backend: BoolColumn;
  virtual_device_id: number | null;
}

export interface VlanTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  name: string;
  vlan_id: number;
  is_enabled: BoolColumn;
}

export interface SsidTable {
  id: Generated<number>;
  uuid: string;
  network_id: number;
  ssid: string;
  is_enabled: BoolColumn;
}

export interface NetworkClientTable {
  id: Generated<number>;
  network_id: number;
  mac_address: string;
  ip: string | null;
  last_seen: string;
  is_connected: BoolColumn;
}

export interface ApiKeyTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  label: string;
  prefix: string;
  secret_hash: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** One entry per write or key event, written in the change's own transaction. */
export interface AuditLogTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  occurred_at: string;
  /** api_key, user or cli. */
  actor_type: string;
  /** The API key's or dashboard user's UUID; null for the CLI. */
  actor_id: string | null;
  actor_label: string;
  action: string;
  object_type: string;
  object_id: string;
  /** JSON text of the object before the change; null for a create. */
  before: string | null;
  /** JSON text of the object after the change; null for a delete. */
  after: string | null;
}

export interface UserTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  email: string;
  role: string;
  password_hash: string;
  created_at: string;
}

export interface UserSessionTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

export interface SignInFailureTable {
  id: Generated<number>;
  subject: string;
  failed_at: string;
}
