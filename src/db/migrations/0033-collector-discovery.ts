import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Which collector found a discovered device (docs/collector.md#discovery):
 * the label of the ingest key that posted it last, as the key was labelled
 * then (as a device's source names its collector), so the dashboard's
 * Discovered page says which site's collector sees it. Null for the rows
 * posted before this migration. Additive: a nullable column the previous
 * version never reads.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await db.schema.alterTable('discovered_devices').addColumn('collector_name', dialect.types.text).execute();
}
