import type { Generated } from 'kysely';

/** The change feed's table. */
export interface ChangeTables {
  changes: ChangeTable;
}

/**
 * One change of the change feed (docs/changes.md). `txid`: the writing
 * transaction's id on PostgreSQL (the column's default), 0 on SQLite.
 */
export interface ChangeTable {
  id: Generated<number>;
  txid: Generated<string | number>;
  company_id: number;
  object_type: string;
  /** A UUID, or a hardware device's serial number. */
  object_id: string;
  /** CREATED, UPDATED, DELETED, ONLINE or OFFLINE. */
  kind: string;
  changed_at: string;
  /** JSON text of the object's fields after the change; null for DELETED. */
  fields: string | null;
  /** The UUID of the audit entry or event that wrote it (migration 0026); null before that. */
  source_uuid: string | null;
}
