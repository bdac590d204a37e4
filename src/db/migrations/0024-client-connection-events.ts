import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Wireless clients' connection events (issue 32): what an access point
 * reports in `clientConnectionEvents` (CONNECTED, DHCP_OK, DISASSOCIATED,
 * ...), one row per event, in the network the device was in. Kept
 * EVENT_RETENTION_DAYS like the event log, deleted in batches by the same
 * retention task (a day's rows are few next to the raw series, so the table
 * is not partitioned). hardware_device_id is what the client samples are
 * keyed by (the eventType filter of the client metrics matches on it);
 * virtual_device_id names the access point to the API. Additive: a new table
 * servers of the previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema
    .createTable('client_connection_events')
    .addColumn('id', t.id, (c) => (dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement()))
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('virtual_device_id', t.id, (c) => c.references('virtual_devices.id').onDelete('set null'))
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('reason', t.text)
    .execute();
  await db.schema.createIndex('client_connection_events_network_idx').on('client_connection_events').columns(['network_id', 'observed_at', 'id']).execute();
  await db.schema
    .createIndex('client_connection_events_client_idx')
    .on('client_connection_events')
    .columns(['hardware_device_id', 'mac_address', 'observed_at'])
    .execute();
  await db.schema.createIndex('client_connection_events_observed_idx').on('client_connection_events').column('observed_at').execute();
}
