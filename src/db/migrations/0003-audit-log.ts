import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The audit log: one row per write and per API key event, written in the same
 * transaction as the change. Additive: servers of the previous version never
 * touch it.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) =>
    dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .addColumn('actor_type', t.text, (c) => c.notNull().check(sql.raw(`actor_type IN ('api_key', 'user', 'cli')`)))
    // text, not uuid: the CLI has no id, and a dashboard's user ids are its own business
    .addColumn('actor_id', t.text)
    .addColumn('actor_label', t.text, (c) => c.notNull())
    .addColumn('action', t.text, (c) => c.notNull())
    .addColumn('object_type', t.text, (c) => c.notNull())
    // a UUID, or a serial number for hardware
    .addColumn('object_id', t.text, (c) => c.notNull())
    .addColumn('before', t.text)
    .addColumn('after', t.text)
    .execute();
  await db.schema
    .createIndex('audit_log_company_occurred_idx')
    .on('audit_log')
    .columns(['company_id', 'occurred_at', 'id'])
    .execute();
  await db.schema.createIndex('audit_log_occurred_idx').on('audit_log').columns(['occurred_at', 'id']).execute();
}
