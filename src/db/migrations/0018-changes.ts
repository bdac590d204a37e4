import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The change feed (docs/changes.md): one row per change to what an
 * integration syncs, written in the transaction of the change. `txid` is the
 * writing transaction's id on PostgreSQL (`pg_current_xact_id()`, set by the
 * column's default), 0 on SQLite, where writes are serialized and `id` alone
 * is commit order. The feed is read in (txid, id) order, per company.
 * Additive: a new table that servers of the previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const postgres = dialect.name === 'postgres';
  // AUTOINCREMENT on SQLite: an id is never reused, even when retention has deleted every row
  const id = (c: ColumnDefinitionBuilder) => (postgres ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('changes')
    .addColumn('id', t.id, id)
    .addColumn('txid', 'bigint', (c) => c.notNull().defaultTo(postgres ? sql`(pg_current_xact_id()::text::bigint)` : sql`0`))
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('object_type', t.text, (c) => c.notNull())
    // a UUID, or a hardware device's serial number
    .addColumn('object_id', t.text, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull().check(sql.raw(`kind IN ('CREATED', 'UPDATED', 'DELETED', 'ONLINE', 'OFFLINE')`)))
    .addColumn('changed_at', t.timestamp, (c) => c.notNull())
    // JSON text of the object's fields after the change; NULL for DELETED
    .addColumn('fields', t.text)
    .execute();
  await db.schema.createIndex('changes_company_order_idx').on('changes').columns(['company_id', 'txid', 'id']).execute();
  await db.schema.createIndex('changes_changed_at_idx').on('changes').column('changed_at').execute();
}
