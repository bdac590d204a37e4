import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Discovery ranges configured in netgraph (docs/collector.md#ranges-in-netgraph):
 * the CIDR ranges a company's collectors sweep for SNMP agents, fetched by
 * the collectors with their ingest key beside their targets. The SNMP
 * secrets are one JSON value sealed as a target's are (`credentials`).
 * `api_key_id` names the one collector (its ingest key) that sweeps the
 * range; null: every collector of the company. Additive: a new table the
 * previous version never reads.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('collector_ranges')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    // keys are revoked, not deleted; a company's deletion takes both
    .addColumn('api_key_id', t.id, (c) => c.references('api_keys.id').onDelete('cascade'))
    .addColumn('cidr', t.text, (c) => c.notNull())
    .addColumn('port', t.integer, (c) => c.notNull())
    .addColumn('snmp_version', t.text, (c) => c.notNull().check(sql.raw(`snmp_version IN ('2c', '3')`)))
    .addColumn('snmp_user', t.text)
    .addColumn('snmp_level', t.text)
    .addColumn('auth_protocol', t.text)
    .addColumn('priv_protocol', t.text)
    .addColumn('credentials', t.text, (c) => c.notNull())
    .addColumn('rate_per_second', t.integer, (c) => c.notNull())
    .addColumn('interval_seconds', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('collector_ranges_company_idx').on('collector_ranges').column('company_id').execute();
}
