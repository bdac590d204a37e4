import type { Generated } from 'kysely';

/** The API key feature's table. */
export interface ApiKeyTables {
  api_keys: ApiKeyTable;
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
  /** When the key stops working; NULL for never. */
  expires_at: string | null;
  /** Canonical CIDRs separated by spaces; NULL for any address. */
  allowed_addresses: string | null;
  /** The client address of the use last_used_at records. */
  last_used_address: string | null;
  /** When this key's API_KEY_EXPIRING alert was claimed (migration 0025); NULL: not yet. */
  expiry_alerted_at: string | null;
}
