import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The rows ingest updates in place on every report: each listed client's
 * network_clients row and open client session, each port's device_ports row.
 *
 * - Each batch first marks disconnected the clients of its networks that no
 *   device reported (imported ones, or those whose device was deleted) and
 *   that are still connected: usually none. That statement found them through
 *   the (network_id, mac_address) key, reading every client of the batch's
 *   networks: 12 ms and 40,000 buffers for 100 networks of the benchmark's
 *   data when none qualified. network_clients_unreported_idx holds only the
 *   rows it updates (0.4 ms); a row leaves it as it is updated. Its columns
 *   are already in network_clients_device_idx, so it costs no heap-only update.
 * - client_sessions_last_seen_idx, which served only retention, put
 *   last_seen, which every report updates, in an index: no session update
 *   could be heap-only, and each wrote a new entry in all five of the table's
 *   indexes. Retention now finds expired sessions by first_seen (never
 *   updated, never above last_seen) and deletes the same rows.
 * - On PostgreSQL the three tables leave a fifth of each page free, so an
 *   updated row's new version fits in its own page and is written heap-only,
 *   without an entry in any index; only pages written from now on are filled
 *   to that point.
 *
 * A previous version's process still running during a rolling upgrade deletes
 * expired sessions by last_seen without an index: a scan of the table on each
 * retention run until it is replaced (docs/operations.md).
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createIndex('network_clients_unreported_idx')
    .on('network_clients')
    .column('network_id')
    .where(sql<boolean>`hardware_device_id IS NULL AND is_connected = true`)
    .execute();
  await db.schema.createIndex('client_sessions_first_seen_idx').on('client_sessions').column('first_seen').execute();
  await db.schema.dropIndex('client_sessions_last_seen_idx').execute();
  if (dialect.name !== 'postgres') return;
  for (const table of ['network_clients', 'device_ports', 'client_sessions']) await sql`ALTER TABLE ${sql.table(table)} SET (fillfactor = 80)`.execute(db);
}
