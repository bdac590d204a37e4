import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * Collector targets configured in netgraph (docs/collector.md): what a
 * company's SNMP collectors poll, one target per virtual device, fetched by
 * the collectors with their ingest key. The SNMP secrets (a v2c community,
 * v3 keys) are one JSON value sealed as webhook secrets are (`credentials`);
 * the rest is plain. On hardware_devices, where a device's latest state came
 * from (`source_*`, written by ingest): the kind of sender, the label of the
 * key that reported, and a collector's last poll, its duration and error.
 * Additive: new table and nullable columns the previous version never reads.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('collector_targets')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    // the device it reports as; deleting the device deletes its target
    .addColumn('virtual_device_id', t.id, (c) => c.notNull().unique().references('virtual_devices.id').onDelete('cascade'))
    .addColumn('host', t.text, (c) => c.notNull())
    .addColumn('port', t.integer, (c) => c.notNull())
    .addColumn('snmp_version', t.text, (c) => c.notNull().check(sql.raw(`snmp_version IN ('2c', '3')`)))
    .addColumn('snmp_user', t.text)
    .addColumn('snmp_level', t.text)
    .addColumn('auth_protocol', t.text)
    .addColumn('priv_protocol', t.text)
    .addColumn('credentials', t.text, (c) => c.notNull())
    .addColumn('interval_seconds', t.integer, (c) => c.notNull())
    // JSON text: ["eth0"], [{"uplink": "eth0", "target": "198.51.100.1:443"}]
    .addColumn('uplinks', t.text, (c) => c.notNull())
    .addColumn('uplink_probes', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('collector_targets_company_idx').on('collector_targets').column('company_id').execute();

  for (const [name, type] of [
    ['source_kind', t.text],
    ['source_name', t.text],
    ['source_at', t.timestamp],
    ['source_poll_error', t.text],
    ['source_poll_ms', dialect.name === 'postgres' ? 'double precision' : 'real'],
  ] as const) {
    await db.schema.alterTable('hardware_devices').addColumn(name, type).execute();
  }
}
