import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * SNMP agents a company's collectors found by sweeping an address range
 * (docs/collector.md#discovery), one row per company and address: what the
 * agent said of itself (sysName, sysDescr, sysObjectID, and the vendor and
 * model read from it), its serial number, when it was first and last found,
 * and whether an admin adopted it (into a virtual device with a collector
 * target) or ignored it. Additive: a new table the previous version never reads.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const id = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('discovered_devices')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('address', t.text, (c) => c.notNull())
    .addColumn('sys_name', t.text)
    .addColumn('sys_descr', t.text)
    .addColumn('sys_object_id', t.text)
    .addColumn('vendor', t.text)
    .addColumn('model', t.text)
    .addColumn('serial_number', t.text)
    .addColumn('snmp_version', t.text, (c) => c.notNull().check(sql.raw(`snmp_version IN ('2c', '3')`)))
    .addColumn('state', t.text, (c) => c.notNull().check(sql.raw(`state IN ('NEW', 'ADOPTED', 'IGNORED')`)))
    // the virtual device it was adopted as; null while not adopted, and once that device is deleted
    .addColumn('virtual_device_id', t.id, (c) => c.references('virtual_devices.id').onDelete('set null'))
    .addColumn('first_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('discovered_devices_company_address_key', ['company_id', 'address'])
    .execute();
}
