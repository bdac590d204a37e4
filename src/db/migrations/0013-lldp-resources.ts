import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * LLDP neighbours and CPU/memory (issue 30), from the devices' reports
 * (docs/reports.md): each port's neighbour as columns of its port row
 * (replaced with the port list, like the port's other state), and each
 * device's latest CPU load and memory as columns of its hardware row (like
 * its uptime). Additive: every column is nullable, so servers of the
 * previous version keep working.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  // NULL: the port sees no LLDP neighbour
  await db.schema.alterTable('device_ports').addColumn('lldp_chassis_id', t.text).execute();
  await db.schema.alterTable('device_ports').addColumn('lldp_port_id', t.text).execute();
  await db.schema.alterTable('device_ports').addColumn('lldp_port_description', t.text).execute();
  await db.schema.alterTable('device_ports').addColumn('lldp_system_name', t.text).execute();
  await db.schema.alterTable('hardware_devices').addColumn('cpu_percent', float).execute();
  await db.schema.alterTable('hardware_devices').addColumn('memory_used_bytes', big).execute();
  await db.schema.alterTable('hardware_devices').addColumn('memory_total_bytes', big).execute();
}
