import type { ColumnDataType, Expression, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The per-sample metrics of a client (docs/reports.md, `clients[]`): column, and whether it is a float, an integer or text. */
const SAMPLE_COLUMNS = [
  ['radio_band', 'text'],
  ['channel', 'integer'],
  ['signal', 'integer'],
  ['snr', 'integer'],
  ['rx_rate', 'float'],
  ['tx_rate', 'float'],
  ['rx_bytes', 'big'],
  ['tx_bytes', 'big'],
  ['hw_mode', 'text'],
  ['ssid', 'text'],
  ['vlan_id', 'integer'],
] as const;

/** The metrics whose 5-minute rollups keep a sum and a count, so averages over longer steps weigh every sample alike. */
const AVERAGED = ['signal', 'snr', 'rx_rate', 'tx_rate'] as const;

/**
 * Wireless client metrics (issue 32). The raw samples are the client
 * observations a report already writes, one per client listed: they gain
 * the client's metrics as nullable columns (NULL costs a bit in a row's
 * null bitmap, so an old sender's rows grow by almost nothing). Their
 * 5-minute rollups, client_metric_rollups, hold one row per client, device
 * and bucket, written only for a client whose sample carries a metric: sums
 * and counts of the averaged metrics, the bucket's first and last byte
 * counters with their growth in between (so a rollup counts the bytes of
 * its 5 minutes as the raw samples do) and the last sample's band, channel,
 * SSID, VLAN and Wi-Fi generation, which the filters read. Additive: servers
 * of the previous version neither write nor read the new columns.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const types: Record<'text' | 'integer' | 'float' | 'big', ColumnDataType | Expression<unknown>> = {
    text: t.text,
    integer: t.integer,
    float: (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType,
    big: (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType,
  };
  // one statement per column: SQLite adds one column per ALTER TABLE; on PostgreSQL the partitions inherit it
  for (const [column, type] of SAMPLE_COLUMNS) await db.schema.alterTable('client_observations').addColumn(column, types[type]).execute();

  let rollups = db.schema
    .createTable('client_metric_rollups')
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('bucket', types.big, (c) => c.notNull())
    .addColumn('is_wireless', t.boolean, (c) => c.notNull())
    // the bucket's last sample
    .addColumn('observed_at', t.timestamp, (c) => c.notNull());
  for (const metric of AVERAGED) {
    rollups = rollups.addColumn(`${metric}_sum`, types.float, (c) => c.notNull()).addColumn(`${metric}_count`, t.integer, (c) => c.notNull());
  }
  for (const [column, type] of SAMPLE_COLUMNS) {
    if (!(AVERAGED as readonly string[]).includes(column)) rollups = rollups.addColumn(column, types[type]);
  }
  // the bucket's first sample's counters, and their growth from the first sample to the last (restarts counted whole)
  rollups = rollups
    .addColumn('first_observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('first_rx_bytes', types.big)
    .addColumn('first_tx_bytes', types.big)
    .addColumn('rx_growth', types.big, (c) => c.notNull())
    .addColumn('tx_growth', types.big, (c) => c.notNull());
  await rollups.addUniqueConstraint('client_metric_rollups_key', ['hardware_device_id', 'mac_address', 'bucket']).execute();
  await db.schema.createIndex('client_metric_rollups_network_idx').on('client_metric_rollups').columns(['network_id', 'bucket']).execute();
  await db.schema.createIndex('client_metric_rollups_bucket_idx').on('client_metric_rollups').column('bucket').execute();
}
