import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Ingest ends a device's open client sessions that its report no longer
 * lists, for a whole batch of devices in one statement: this index finds a
 * device's open sessions directly, where the open-session key would walk
 * every open session of the device's network for each device. Additive: an
 * index only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('client_sessions_open_device_idx')
    .on('client_sessions')
    .columns(['hardware_device_id', 'network_id'])
    .where(sql.ref('ended_at'), 'is', null)
    .execute();
}
