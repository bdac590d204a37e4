import { sql } from 'kysely';
import type { ColumnDataType, CreateTableBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/**
 * The 5-minute rollups this migration tiers, as literal copies (migrations
 * are history): each table's key columns besides hardware_device_id and
 * bucket, with their types, and the metrics it keeps a count and a sum of
 * (migrations 0015 and 0016).
 */
const TIERED = [
  {
    table: 'radio_rollups',
    keys: [['radio_band', 'text']],
    metrics: ['total_utilization', 'rx_utilization', 'tx_utilization', 'self_utilization', 'obss_utilization', 'non_wifi_utilization'],
  },
  { table: 'pdu_outlet_rollups', keys: [['outlet_number', 'integer']], metrics: ['current_amps', 'power_watts', 'voltage_volts', 'energy_used_kwh'] },
  { table: 'device_temperature_rollups', keys: [], metrics: ['temperature_celsius'] },
] as const;

/** The tiers: table suffix and bucket width in seconds. */
const TIERS = [
  ['hourly', 3_600],
  ['daily', 86_400],
] as const;

/**
 * Tiered history (issue 31, goal 2) for the radio utilization, PDU outlet
 * and device temperature rollups: an hourly and a daily table of each, with
 * its columns, key and bucket index, each row the counts and sums of the
 * 5-minute rows of its bucket (no network column: these rows are keyed by
 * device, and the reads find the device's rows wherever it is). The outlets'
 * energy used is already a sum of increments worked out at ingest (the
 * counter's growth between readings, restarts counted whole), so it adds up
 * like the others. Ingest folds into the tiers from now on; the 5-minute rows
 * already stored are folded here, one INSERT ... SELECT per tier, so the
 * tiers hold the whole history from the start. Additive: the previous
 * version neither reads nor writes them (its reports, written while a
 * cluster upgrades, reach only the 5-minute tables: docs/operations.md,
 * "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  for (const { table, keys, metrics } of TIERED) {
    for (const [suffix, seconds] of TIERS) {
      const tier = `${table}_${suffix}`;
      let create: CreateTableBuilder<string, string> = db.schema.createTable(tier).addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'));
      for (const [key, type] of keys) create = create.addColumn(key, type === 'text' ? t.text : t.integer, (c) => c.notNull());
      create = create.addColumn('bucket', big, (c) => c.notNull());
      for (const metric of metrics) create = create.addColumn(`${metric}_count`, t.integer, (c) => c.notNull()).addColumn(`${metric}_sum`, float, (c) => c.notNull());
      const key = ['hardware_device_id', ...keys.map(([name]) => name), 'bucket'];
      await create.addUniqueConstraint(`${tier}_key`, key).execute();
      await db.schema.createIndex(`${tier}_bucket_idx`).on(tier).column('bucket').execute();
      const group = ['hardware_device_id', ...keys.map(([name]) => name)].join(', ');
      const names = metrics.flatMap((m) => [`${m}_count`, `${m}_sum`]).join(', ');
      const sums = metrics.flatMap((m) => [`sum(${m}_count)`, `sum(${m}_sum)`]).join(', ');
      await sql
        .raw(
          `INSERT INTO ${tier} (${group}, bucket, ${names}) SELECT ${group}, bucket - bucket % ${seconds}, ${sums} ` +
            `FROM ${table} GROUP BY ${group}, bucket - bucket % ${seconds}`,
        )
        .execute(db);
    }
  }
}
