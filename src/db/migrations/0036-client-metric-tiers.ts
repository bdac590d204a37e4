import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The averaged metrics of client_metric_rollups (migration 0014; a literal copy: migrations are history). */
const AVERAGED = ['signal', 'snr', 'rx_rate', 'tx_rate'];

/** The tiers: table suffix and bucket width in seconds. */
const TIERS = [
  ['hourly', 3_600],
  ['daily', 86_400],
] as const;

/**
 * Tiered history (issue 31, goal 2) of the client metric rollups: an hourly
 * and a daily table, each row the 5-minute rows of one tier bucket that share
 * a device, client, network, kind (is_wireless) and band, with their number
 * (row_count) and the sums and counts of the averaged metrics. The network,
 * kind and band are the 5-minute row's (its last sample's), and they are the
 * key because the roots that read the tiers filter on them (apHealthScores
 * the wireless clients' SNR, channelUtilizationByClient the bands a client
 * was on); a 5-minute row without a band has '' (a key column cannot be
 * NULL on both stores). The byte counters, the last sample's channel, SSID,
 * VLAN and Wi-Fi generation stay in the 5-minute rows, which the client
 * metrics roots keep reading (docs/metrics.md, "Tiers"). Ingest folds into
 * the tiers from now on; the 5-minute rows already stored are folded here,
 * one INSERT ... SELECT per tier (the migrator ANALYZEs every table after
 * the last migration). Additive: the previous version neither reads nor
 * writes them (docs/operations.md, "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  for (const [suffix, seconds] of TIERS) {
    const tier = `client_metric_rollups_${suffix}`;
    let create = db.schema
      .createTable(tier)
      .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('mac_address', t.text, (c) => c.notNull())
      .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('is_wireless', t.boolean, (c) => c.notNull())
      .addColumn('radio_band', t.text, (c) => c.notNull())
      .addColumn('row_count', t.integer, (c) => c.notNull());
    for (const metric of AVERAGED) create = create.addColumn(`${metric}_count`, t.integer, (c) => c.notNull()).addColumn(`${metric}_sum`, float, (c) => c.notNull());
    // the device's rows of a window first (apHealthScores); a client's in a network by its own index (channelUtilizationByClient)
    await create.addUniqueConstraint(`${tier}_key`, ['hardware_device_id', 'bucket', 'mac_address', 'network_id', 'is_wireless', 'radio_band']).execute();
    await db.schema.createIndex(`${tier}_client_idx`).on(tier).columns(['network_id', 'mac_address', 'bucket']).execute();
    await db.schema.createIndex(`${tier}_bucket_idx`).on(tier).column('bucket').execute();
    const group = `hardware_device_id, bucket - bucket % ${seconds}, mac_address, network_id, is_wireless, coalesce(radio_band, '')`;
    const names = AVERAGED.flatMap((m) => [`${m}_count`, `${m}_sum`]).join(', ');
    const sums = AVERAGED.flatMap((m) => [`sum(${m}_count)`, `sum(${m}_sum)`]).join(', ');
    await sql
      .raw(
        `INSERT INTO ${tier} (hardware_device_id, bucket, mac_address, network_id, is_wireless, radio_band, row_count, ${names}) ` +
          `SELECT ${group}, count(*), ${sums} FROM client_metric_rollups GROUP BY ${group}`,
      )
      .execute(db);
  }
}
