import type { Generated } from 'kysely';

/** The event log's table. */
export interface EventTables {
  events: EventTable;
}

/** One entry of a network's event log: a device's own, or DEVICE_ONLINE / DEVICE_OFFLINE from netgraph. */
export interface EventTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  network_id: number | null;
  hardware_device_id: number | null;
  virtual_device_id: number | null;
  type: string;
  observed_at: string;
  /** JSON text, or null. */
  details: string | null;
  /** device or netgraph. */
  source: string;
  /** When the webhook dispatcher turned it into messages; null until then (docs/webhooks.md). */
  dispatched_at: string | null;
}
