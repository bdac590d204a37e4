import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * A device's CPU and memory over time (issue 32, apHealthScores): before,
 * ingest kept only the latest values on hardware_devices. resource_samples
 * holds one row per report that carries cpuPercent, memoryUsedBytes or
 * memoryTotalBytes (partitioned by day on PostgreSQL, like the other raw
 * series); resource_rollups, per device and 5-minute bucket, the sum and
 * count of the CPU percentages and of the memory percentages (used / total
 * of a report that carries both). Additive: new tables that servers of the
 * previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;

  const samples = db.schema
    .createTable('resource_samples')
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('cpu_percent', float)
    .addColumn('memory_used_bytes', big)
    .addColumn('memory_total_bytes', big);
  await (dialect.partitionsByTime ? samples.modifyEnd(sql`PARTITION BY RANGE (observed_at)`) : samples).execute();
  await db.schema.createIndex('resource_samples_device_idx').on('resource_samples').columns(['hardware_device_id', 'observed_at']).execute();
  await db.schema.createIndex('resource_samples_observed_idx').on('resource_samples').column('observed_at').execute();

  await db.schema
    .createTable('resource_rollups')
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('bucket', big, (c) => c.notNull())
    .addColumn('cpu_percent_count', t.integer, (c) => c.notNull())
    .addColumn('cpu_percent_sum', float, (c) => c.notNull())
    .addColumn('memory_percent_count', t.integer, (c) => c.notNull())
    .addColumn('memory_percent_sum', float, (c) => c.notNull())
    .addUniqueConstraint('resource_rollups_key', ['hardware_device_id', 'bucket'])
    .execute();
  await db.schema.createIndex('resource_rollups_bucket_idx').on('resource_rollups').column('bucket').execute();

  if (dialect.partitionsByTime) await sql`CREATE TABLE resource_samples_default PARTITION OF resource_samples DEFAULT`.execute(db);
}
