import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * What the alerts of issue 29 and 32 claim so that they fire once across
 * every server process (docs/alerts.md): `api_keys.expiry_alerted_at`, set
 * by the one process whose conditional update claimed the key's API_KEY_EXPIRING
 * alert; and `foreign_ap_detections`, per network, rule (ROGUE or HONEYPOT)
 * and BSSID, when the rule last selected it, so a detection is an event only
 * when the BSSID was not selected in the 24 hours before. Additive: a
 * nullable column and a new table that servers of the previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  await db.schema.alterTable('api_keys').addColumn('expiry_alerted_at', t.timestamp).execute();
  await db.schema
    .createTable('foreign_ap_detections')
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('bssid', t.text, (c) => c.notNull())
    .addColumn('last_detected_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('foreign_ap_detections_key', ['network_id', 'kind', 'bssid'])
    .execute();
}
