import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The uplink metrics of migration 0004 (a literal copy: migrations are history). */
const UPLINK_METRICS = ['latency_ms', 'jitter_ms', 'loss_percent', 'rx_bps', 'tx_bps'];

/** The tiers this migration makes: table and bucket width in seconds. */
const TIERS = [
  ['uplink_rollups_hourly', 3_600],
  ['uplink_rollups_daily', 86_400],
] as const;

/**
 * Tiered history (issue 31, goal 2): the hourly and daily tiers of the uplink
 * rollups and of activeClients' presence and report counts (below); the uplink ones with the columns and indexes of uplink_rollups (migration 0004),
 * each row the sums, counts, minimum and maximum of the 5-minute rows of its
 * bucket and network. The network is part of the key (a 5-minute row keeps
 * the network of its first sample, and a device that moves mid-hour has rows
 * of two networks in one hour); 5-minute rows of no network, which no series
 * reads, have no tier rows. Ingest folds into them from now on; the 5-minute rows
 * already stored are folded here, in one INSERT ... SELECT per tier, so the
 * tiers hold the whole history from the start. Like the 5-minute rollups,
 * they are not partitioned: retention deletes them in batches. Additive: the
 * previous version neither reads nor writes them (its reports, written while
 * a cluster upgrades, reach only the 5-minute table: docs/operations.md,
 * "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await createUplinkTiers(db, dialect);
  await createClientTiers(db, dialect);
}

/**
 * The tiers of activeClients: a distinct count does not add up from counts,
 * so the hourly and daily tiers keep what the 5-minute ones keep, coarser:
 * one presence row per network, bucket, client and kind, and the number of
 * reports per network and bucket (the buckets that count, with 0 clients too).
 */
async function createClientTiers(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  for (const [suffix, seconds] of [['hourly', 3_600], ['daily', 86_400]] as const) {
    const presence = `client_presence_rollups_${suffix}`;
    await db.schema
      .createTable(presence)
      .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('mac_address', t.text, (c) => c.notNull())
      .addColumn('is_wireless', t.boolean, (c) => c.notNull())
      .addUniqueConstraint(`${presence}_key`, ['network_id', 'bucket', 'mac_address', 'is_wireless'])
      .execute();
    await db.schema.createIndex(`${presence}_bucket_idx`).on(presence).column('bucket').execute();
    await sql
      .raw(`INSERT INTO ${presence} (network_id, bucket, mac_address, is_wireless) SELECT DISTINCT network_id, bucket - bucket % ${seconds}, mac_address, is_wireless FROM client_presence_rollups`)
      .execute(db);
    const reports = `report_rollups_${suffix}`;
    await db.schema
      .createTable(reports)
      .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('report_count', t.integer, (c) => c.notNull())
      .addUniqueConstraint(`${reports}_key`, ['network_id', 'bucket'])
      .execute();
    await db.schema.createIndex(`${reports}_bucket_idx`).on(reports).column('bucket').execute();
    await sql
      .raw(`INSERT INTO ${reports} (network_id, bucket, report_count) SELECT network_id, bucket - bucket % ${seconds}, sum(report_count) FROM report_rollups GROUP BY network_id, bucket - bucket % ${seconds}`)
      .execute(db);
  }
}

/** The uplink tiers (see up). */
async function createUplinkTiers(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  for (const [table, seconds] of TIERS) {
    let tier = db.schema
      .createTable(table)
      .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
      .addColumn('port_number', t.integer, (c) => c.notNull())
      .addColumn('bucket', big, (c) => c.notNull());
    for (const metric of UPLINK_METRICS) {
      tier = tier
        .addColumn(`${metric}_count`, t.integer, (c) => c.notNull())
        .addColumn(`${metric}_sum`, float, (c) => c.notNull())
        .addColumn(`${metric}_min`, float)
        .addColumn(`${metric}_max`, float);
    }
    await tier.addUniqueConstraint(`${table}_key`, ['hardware_device_id', 'port_number', 'bucket', 'network_id']).execute();
    await db.schema.createIndex(`${table}_network_idx`).on(table).columns(['network_id', 'bucket']).execute();
    await db.schema.createIndex(`${table}_bucket_idx`).on(table).column('bucket').execute();
    const aggregates = UPLINK_METRICS.flatMap((m) => [`sum(${m}_count)`, `sum(${m}_sum)`, `min(${m}_min)`, `max(${m}_max)`]).join(', ');
    const names = UPLINK_METRICS.flatMap((m) => [`${m}_count`, `${m}_sum`, `${m}_min`, `${m}_max`]).join(', ');
    await sql
      .raw(
        `INSERT INTO ${table} (network_id, hardware_device_id, port_number, bucket, ${names}) ` +
          `SELECT network_id, hardware_device_id, port_number, bucket - bucket % ${seconds}, ${aggregates} ` +
          `FROM uplink_rollups WHERE network_id IS NOT NULL GROUP BY network_id, hardware_device_id, port_number, bucket - bucket % ${seconds}`,
      )
      .execute(db);
  }
}
