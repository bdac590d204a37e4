import { sql } from 'kysely';
import type { ColumnDataType, ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The utilization metrics of a radio sample, in percent: columns of radio_samples, column prefixes of radio_rollups. */
const UTILIZATION = ['total_utilization', 'rx_utilization', 'tx_utilization', 'self_utilization', 'obss_utilization', 'non_wifi_utilization'] as const;

/**
 * Channel utilization and DNS requests (issue 32), from the devices' reports
 * (docs/reports.md, `radioChannels` and `dnsRequests`):
 * - radio_samples: one row per physical radio (band) per report, with its
 *   channel, width, power, noise floor and utilization; radio_rollups: per
 *   radio and 5-minute bucket, each utilization's sum and sample count.
 * - dns_counters: a controller's cumulative DNS request counter, one row per
 *   report; dns_counter_rollups: the last reading of each 5-minute bucket.
 * The raw tables are partitioned by day on PostgreSQL, like the other raw
 * series. Additive: new tables that servers of the previous version never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  const byDay = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect.partitionsByTime ? builder.modifyEnd(sql`PARTITION BY RANGE (observed_at)`) : builder;
  const device = (c: ColumnDefinitionBuilder) => c.notNull().references('hardware_devices.id').onDelete('cascade');

  let samples = db.schema
    .createTable('radio_samples')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('radio_band', t.text, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('channel', t.integer)
    .addColumn('channel_width_mhz', t.integer)
    .addColumn('tx_power_dbm', float)
    .addColumn('noise_floor_dbm', float);
  for (const metric of UTILIZATION) samples = samples.addColumn(metric, float);
  await byDay(samples).execute();
  await db.schema.createIndex('radio_samples_device_idx').on('radio_samples').columns(['hardware_device_id', 'radio_band', 'observed_at']).execute();
  await db.schema.createIndex('radio_samples_observed_idx').on('radio_samples').column('observed_at').execute();

  let rollups = db.schema
    .createTable('radio_rollups')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('radio_band', t.text, (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull());
  for (const metric of UTILIZATION) {
    rollups = rollups.addColumn(`${metric}_count`, t.integer, (c) => c.notNull()).addColumn(`${metric}_sum`, float, (c) => c.notNull());
  }
  await rollups.addUniqueConstraint('radio_rollups_key', ['hardware_device_id', 'radio_band', 'bucket']).execute();
  await db.schema.createIndex('radio_rollups_bucket_idx').on('radio_rollups').column('bucket').execute();

  await byDay(
    db.schema
      .createTable('dns_counters')
      .addColumn('hardware_device_id', t.id, device)
      .addColumn('observed_at', t.timestamp, (c) => c.notNull())
      .addColumn('uptime_seconds', big)
      .addColumn('requests', big, (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('dns_counters_device_idx').on('dns_counters').columns(['hardware_device_id', 'observed_at']).execute();
  await db.schema.createIndex('dns_counters_observed_idx').on('dns_counters').column('observed_at').execute();

  await db.schema
    .createTable('dns_counter_rollups')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('bucket', big, (c) => c.notNull())
    // the bucket's last reading
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('uptime_seconds', big)
    .addColumn('requests', big, (c) => c.notNull())
    .addUniqueConstraint('dns_counter_rollups_key', ['hardware_device_id', 'bucket'])
    .execute();
  await db.schema.createIndex('dns_counter_rollups_bucket_idx').on('dns_counter_rollups').column('bucket').execute();

  if (dialect.partitionsByTime) {
    for (const table of ['radio_samples', 'dns_counters']) await sql`CREATE TABLE ${sql.table(`${table}_default`)} PARTITION OF ${sql.table(table)} DEFAULT`.execute(db);
  }
}
