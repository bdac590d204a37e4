import type { Generated } from 'kysely';

/** The audit log's table. */
export interface AuditTables {
  audit_log: AuditLogTable;
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
  /** When the webhook dispatcher turned it into AUDIT_LOG messages; null until then. */
  dispatched_at: string | null;
}
