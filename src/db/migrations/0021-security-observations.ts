import { sql } from 'kysely';
import type { ColumnDataType, ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * What the security page and idsEvents, ipsEvents,
 * rogueAccessPointsObservedOnNetwork and honeypotSSIDsObservedOnNetwork read
 * (issue 32), from the devices' reports (docs/reports.md): each IDS/IPS
 * detection a controller reports (`idsDetections`), with the network's
 * IDS/IPS mode when it was ingested, and each foreign BSSID an access point
 * hears (`foreignBSSIDs`). Both are raw series: partitioned by day on
 * PostgreSQL and kept TELEMETRY_RAW_RETENTION_HOURS, like the raw series of
 * migration 0004. The network and virtual device are the reporter's when the
 * report came, as for events. Additive: new tables that servers of the
 * previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const device = (c: ColumnDefinitionBuilder) => c.notNull().references('hardware_devices.id').onDelete('cascade');
  const network = (c: ColumnDefinitionBuilder) => c.notNull().references('networks.id').onDelete('cascade');
  const virtualDevice = (c: ColumnDefinitionBuilder) => c.references('virtual_devices.id').onDelete('set null');
  const byDay = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect.partitionsByTime ? builder.modifyEnd(sql`PARTITION BY RANGE (observed_at)`) : builder;
  const small = t.integer as ColumnDataType;

  await byDay(
    db.schema
      .createTable('ids_detections')
      .addColumn('network_id', t.id, network)
      .addColumn('hardware_device_id', t.id, device)
      .addColumn('virtual_device_id', t.id, virtualDevice)
      .addColumn('observed_at', t.timestamp, (c) => c.notNull())
      // IDS or IPS: the network's IDS/IPS mode when the report was ingested (docs/schema.md)
      .addColumn('mode', t.text, (c) => c.notNull())
      .addColumn('src_ip', t.text, (c) => c.notNull())
      .addColumn('dst_ip', t.text, (c) => c.notNull())
      .addColumn('protocol', t.text, (c) => c.notNull())
      .addColumn('src_port', small)
      .addColumn('dst_port', small)
      .addColumn('direction', t.text, (c) => c.notNull())
      .addColumn('signature', t.text),
  ).execute();
  await db.schema.createIndex('ids_detections_network_idx').on('ids_detections').columns(['network_id', 'mode', 'observed_at']).execute();
  await db.schema.createIndex('ids_detections_observed_idx').on('ids_detections').column('observed_at').execute();

  await byDay(
    db.schema
      .createTable('foreign_bssid_observations')
      .addColumn('network_id', t.id, network)
      .addColumn('hardware_device_id', t.id, device)
      .addColumn('virtual_device_id', t.id, virtualDevice)
      .addColumn('observed_at', t.timestamp, (c) => c.notNull())
      .addColumn('bssid', t.text, (c) => c.notNull())
      .addColumn('ssid', t.text)
      .addColumn('rssi', small, (c) => c.notNull())
      .addColumn('channel', small),
  ).execute();
  await db.schema.createIndex('foreign_bssid_observations_network_idx').on('foreign_bssid_observations').columns(['network_id', 'observed_at']).execute();
  await db.schema.createIndex('foreign_bssid_observations_observed_idx').on('foreign_bssid_observations').column('observed_at').execute();

  if (dialect.partitionsByTime) {
    for (const table of ['ids_detections', 'foreign_bssid_observations']) {
      await sql`CREATE TABLE ${sql.table(`${table}_default`)} PARTITION OF ${sql.table(table)} DEFAULT`.execute(db);
    }
  }
}
