import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * network_clients_device_idx was (hardware_device_id, is_connected) over
 * every client. Without statistics (a fresh `netgraph import`, autovacuum
 * off) PostgreSQL's generic plan for a network's clients ANDed a bitmap scan
 * of that index for `is_connected` (every client of every network) to the
 * network's own rows: 4.7 ms instead of 0.33 ms with 150,000 clients. The
 * index now holds only clients a device reported (imported ones have no
 * device), so a read that does not name a device cannot use it, while every
 * statement that does (ingest's updates, a port's connected clients, the
 * foreign key's SET NULL) names it with `=`, which implies the predicate.
 * Additive in effect: the old version's statements run unchanged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('network_clients_device_idx').execute();
  await db.schema
    .createIndex('network_clients_device_idx')
    .on('network_clients')
    .columns(['hardware_device_id', 'is_connected'])
    .where(sql.ref('hardware_device_id'), 'is not', null)
    .execute();
}
