import { sql } from 'kysely';
import type { ColumnDataType, ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * PDU outlets and device temperature (issue 32), from the devices' reports
 * (docs/reports.md): each PDU's outlets as its latest report with `outlets`
 * listed them (replaced as a set, like the MAC table), every outlet reading
 * and every temperature as raw series (partitioned by day on PostgreSQL,
 * like the raw series of migration 0004), and their 5-minute rollups with a
 * sum and a count per metric, so averages over longer steps weigh every
 * sample alike. Additive: new tables that servers of the previous version
 * never read.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  const device = (c: ColumnDefinitionBuilder) => c.notNull().references('hardware_devices.id').onDelete('cascade');
  const byDay = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect.partitionsByTime ? builder.modifyEnd(sql`PARTITION BY RANGE (observed_at)`) : builder;

  await db.schema
    .createTable('pdu_outlets')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('outlet_number', t.integer, (c) => c.notNull())
    .addColumn('label', t.text)
    .addColumn('is_on', t.boolean)
    .addColumn('current_amps', float)
    .addColumn('power_watts', float)
    .addColumn('voltage_volts', float)
    .addColumn('energy_kwh', float)
    // the observedAt of the report that listed the outlet last
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('pdu_outlets_pkey', ['hardware_device_id', 'outlet_number'])
    .execute();

  let samples = db.schema
    .createTable('pdu_outlet_samples')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('outlet_number', t.integer, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull());
  for (const metric of [...OUTLET_METRICS, 'energy_kwh']) samples = samples.addColumn(metric, float);
  await byDay(samples).execute();
  await db.schema.createIndex('pdu_outlet_samples_device_idx').on('pdu_outlet_samples').columns(['hardware_device_id', 'observed_at']).execute();
  await db.schema.createIndex('pdu_outlet_samples_observed_idx').on('pdu_outlet_samples').column('observed_at').execute();

  await byDay(db.schema
    .createTable('device_temperature_samples')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('temperature_celsius', float, (c) => c.notNull()))
    .execute();
  await db.schema.createIndex('device_temperature_samples_device_idx').on('device_temperature_samples').columns(['hardware_device_id', 'observed_at']).execute();
  await db.schema.createIndex('device_temperature_samples_observed_idx').on('device_temperature_samples').column('observed_at').execute();
  if (dialect.partitionsByTime) {
    for (const table of ['pdu_outlet_samples', 'device_temperature_samples']) {
      await sql`CREATE TABLE ${sql.table(`${table}_default`)} PARTITION OF ${sql.table(table)} DEFAULT`.execute(db);
    }
  }

  let rollups = db.schema
    .createTable('pdu_outlet_rollups')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('outlet_number', t.integer, (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull());
  for (const metric of OUTLET_METRICS) {
    rollups = rollups.addColumn(`${metric}_count`, t.integer, (c) => c.notNull()).addColumn(`${metric}_sum`, float, (c) => c.notNull());
  }
  await rollups.addUniqueConstraint('pdu_outlet_rollups_key', ['hardware_device_id', 'outlet_number', 'bucket']).execute();
  await db.schema.createIndex('pdu_outlet_rollups_bucket_idx').on('pdu_outlet_rollups').column('bucket').execute();

  await db.schema
    .createTable('device_temperature_rollups')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('bucket', big, (c) => c.notNull())
    .addColumn('temperature_celsius_count', t.integer, (c) => c.notNull())
    .addColumn('temperature_celsius_sum', float, (c) => c.notNull())
    .addUniqueConstraint('device_temperature_rollups_key', ['hardware_device_id', 'bucket'])
    .execute();
  await db.schema.createIndex('device_temperature_rollups_bucket_idx').on('device_temperature_rollups').column('bucket').execute();
}

/**
 * The outlet metrics a rollup sums, as column prefixes (a literal copy:
 * migrations are history); energy_used_kwh is the growth of the outlet's
 * energy counter since its previous reading, worked out at ingest.
 */
const OUTLET_METRICS = ['current_amps', 'power_watts', 'voltage_volts', 'energy_used_kwh'] as const;
