import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The sum and count columns of resource_rollups (migration 0019; a literal copy: migrations are history). */
const SUMS = ['cpu_percent_count', 'cpu_percent_sum', 'memory_percent_count', 'memory_percent_sum'];

/**
 * Tiered history (issue 31, goal 2) of the CPU and memory rollups: the
 * hourly and daily tiers of resource_rollups, with its columns, each row the
 * sums and counts of the 5-minute rows of its bucket and device (sums and
 * counts add up, so a tier row is exact whatever order reports arrive in).
 * Ingest folds into them from now on; the 5-minute rows already stored are
 * folded here, in one INSERT ... SELECT per tier. Not partitioned, like the
 * 5-minute rollups: retention deletes them in batches. Additive: the
 * previous version neither reads nor writes them (docs/operations.md,
 * "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await createResourceTiers(db, dialect);
}

/** The CPU and memory tiers (see up). */
async function createResourceTiers(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  for (const [table, seconds] of [['resource_rollups_hourly', 3_600], ['resource_rollups_daily', 86_400]] as const) {
    await db.schema
      .createTable(table)
      .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('cpu_percent_count', t.integer, (c) => c.notNull())
      .addColumn('cpu_percent_sum', float, (c) => c.notNull())
      .addColumn('memory_percent_count', t.integer, (c) => c.notNull())
      .addColumn('memory_percent_sum', float, (c) => c.notNull())
      .addUniqueConstraint(`${table}_key`, ['hardware_device_id', 'bucket'])
      .execute();
    await db.schema.createIndex(`${table}_bucket_idx`).on(table).column('bucket').execute();
    await sql
      .raw(
        `INSERT INTO ${table} (hardware_device_id, bucket, ${SUMS.join(', ')}) ` +
          `SELECT hardware_device_id, bucket - bucket % ${seconds}, ${SUMS.map((s) => `sum(${s})`).join(', ')} ` +
          `FROM resource_rollups GROUP BY hardware_device_id, bucket - bucket % ${seconds}`,
      )
      .execute(db);
  }
}

