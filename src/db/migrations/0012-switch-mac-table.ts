import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Each switch's MAC forwarding table as its latest report with `macTable`
 * listed it (docs/reports.md): one row per MAC address and VLAN. `vlan_id` is
 * 0 for an entry of a bridge without VLANs (the API answers null), so the key
 * holds no NULL, which the two stores' unique indexes treat differently.
 * `updated_at` is the observedAt of the report that first listed the entry on
 * its current port. Additive: a new table that servers of the previous
 * version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema
    .createTable('switch_mac_entries')
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('vlan_id', t.integer, (c) => c.notNull())
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    // the API lists a device's entries in this order, from this index
    .addPrimaryKeyConstraint('switch_mac_entries_pkey', ['hardware_device_id', 'mac_address', 'vlan_id'])
    .execute();
}
