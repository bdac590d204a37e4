import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Which write made a change of the feed (docs/changes.md, docs/webhooks.md):
 * `source_uuid` is the UUID of the audit entry or the event (DEVICE_ONLINE,
 * DEVICE_OFFLINE) whose transaction wrote the change, so the webhook
 * dispatcher can give a delivery of that entry or event the cursor of its
 * changes. NULL for changes written before this migration. Additive: a
 * nullable column servers of the previous version never write or read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await db.schema.alterTable('changes').addColumn('source_uuid', dialect.types.uuid).execute();
  await db.schema.createIndex('changes_source_idx').on('changes').column('source_uuid').execute();
}
