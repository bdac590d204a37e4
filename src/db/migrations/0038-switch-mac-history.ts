import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The history of each switch's MAC forwarding table (issue 32): per
 * (switch, MAC address, VLAN), the intervals its table held the address on
 * one port, `[first_seen_at, gone_at)`. `first_seen_at` is the observedAt of
 * the report that first listed it on that port (switch_mac_entries'
 * updated_at while it is there); `gone_at` that of the first report that no
 * longer listed it there (moved, or left), NULL while the latest table still
 * lists it. Ingest writes only what changed: an interval opens when an entry
 * appears and closes when it goes. rogueAccessPointsObservedOnNetwork reads
 * it to tell what was on the wire during a window. Intervals closed before
 * the raw retention's start are deleted with the raw series.
 *
 * Seeded from switch_mac_entries: every entry there is an open interval
 * since its updated_at. Additive: a new table the previous version never
 * reads (its ingest leaves it as it is; this version closes an interval the
 * previous one left open at the first report that no longer lists it).
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema
    .createTable('switch_mac_history')
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('mac_address', t.text, (c) => c.notNull())
    // 0: the bridge has no VLANs (as in switch_mac_entries)
    .addColumn('vlan_id', t.integer, (c) => c.notNull())
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('first_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('gone_at', t.timestamp)
    // an entry is on one port at a time, so its intervals start at distinct times: ingest closes one by this key;
    // the reads find a switch's addresses of a prefix by its first two columns
    .addPrimaryKeyConstraint('switch_mac_history_pkey', ['hardware_device_id', 'mac_address', 'vlan_id', 'first_seen_at'])
    .execute();
  // the retention's deletes
  await db.schema.createIndex('switch_mac_history_gone_idx').on('switch_mac_history').column('gone_at').execute();
  await sql`INSERT INTO switch_mac_history (hardware_device_id, mac_address, vlan_id, port_number, first_seen_at, gone_at)
    SELECT hardware_device_id, mac_address, vlan_id, port_number, updated_at, NULL FROM switch_mac_entries`.execute(db);
}
