import { sql } from 'kysely';
import type { ColumnDataType, Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

/** The tiers (literal copies: migrations are history): suffix and bucket width in seconds. */
const TIERS = [
  ['hourly', 3_600],
  ['daily', 86_400],
] as const;

/** The band tiers' key, in index order: a client's rows in a network first (channelUtilizationByClient). */
const BAND_KEY = ['network_id', 'mac_address', 'bucket', 'hardware_device_id', 'radio_band'] as const;

/**
 * The hourly and daily client metric tiers as what their two readers use
 * (issue 31, goal 1). client_metric_rollups_hourly and `_daily` (migration
 * 0036) held one row per device, client, network, kind and band in each
 * bucket, with the counts and sums of four metrics and three indexes; only
 * apHealthScores (its device's wireless clients' SNR) and
 * channelUtilizationByClient (the device and band a client was on) read
 * them. They become two tables per tier:
 *
 * - client_snr_rollups_hourly (and `_daily`): per device and bucket, the SNR
 *   count and sum of the 5-minute rows of its wireless clients;
 * - client_band_rollups_hourly (and `_daily`): per network, client, bucket,
 *   device and band, how many 5-minute rows of a wireless client with that
 *   band the bucket holds (row_count); a row goes when none is left. Its
 *   hardware_device_id has no foreign key: the key leads with the network
 *   (whose deletion cascades), and a deleted device's rows match no radio of
 *   the network any more.
 *
 * The rows already stored are converted here. The old tables stay, empty: a
 * server of the previous version still running during a rolling upgrade
 * upserts into them, and a trigger adds each of its rows to the new tables
 * instead and skips the insert (docs/operations.md, "Upgrading").
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const t = dialect.types;
  const big = (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType;
  const float = (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType;
  for (const [suffix] of TIERS) {
    const old = `client_metric_rollups_${suffix}`;
    const snr = `client_snr_rollups_${suffix}`;
    const band = `client_band_rollups_${suffix}`;
    await db.schema
      .createTable(snr)
      .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('snr_count', t.integer, (c) => c.notNull())
      .addColumn('snr_sum', float, (c) => c.notNull())
      .addUniqueConstraint(`${snr}_key`, ['hardware_device_id', 'bucket'])
      .execute();
    await db.schema.createIndex(`${snr}_bucket_idx`).on(snr).column('bucket').execute();
    await db.schema
      .createTable(band)
      .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('mac_address', t.text, (c) => c.notNull())
      .addColumn('bucket', big, (c) => c.notNull())
      .addColumn('hardware_device_id', big, (c) => c.notNull())
      .addColumn('radio_band', t.text, (c) => c.notNull())
      .addColumn('row_count', t.integer, (c) => c.notNull())
      .addUniqueConstraint(`${band}_key`, [...BAND_KEY])
      .execute();
    await db.schema.createIndex(`${band}_bucket_idx`).on(band).column('bucket').execute();
    await sql
      .raw(`INSERT INTO ${snr} (hardware_device_id, bucket, snr_count, snr_sum) SELECT hardware_device_id, bucket, sum(snr_count), sum(snr_sum) FROM ${old} WHERE is_wireless GROUP BY hardware_device_id, bucket`)
      .execute(db);
    await sql
      .raw(`INSERT INTO ${band} (${BAND_KEY.join(', ')}, row_count) SELECT ${BAND_KEY.join(', ')}, sum(row_count) FROM ${old} WHERE is_wireless AND radio_band > '' GROUP BY ${BAND_KEY.join(', ')}`)
      .execute(db);
    await sql.raw(`DELETE FROM ${old}`).execute(db);
    await redirect(db, dialect, suffix);
  }
}

/**
 * A row the previous version upserts into the old tier `suffix` (counts and
 * sums to add, row_count +1, 0 or -1: report.client-tiers.ts of that
 * version) goes into the new tables instead: a wireless row's SNR into the
 * device's row, and with a band its row_count into the band row, which goes
 * once none is left. The insert itself is skipped.
 */
async function redirect(db: Kysely<unknown>, dialect: SqlDialect, suffix: string): Promise<void> {
  const old = `client_metric_rollups_${suffix}`;
  const snr = `client_snr_rollups_${suffix}`;
  const band = `client_band_rollups_${suffix}`;
  const postgres = dialect.name === 'postgres';
  const values = BAND_KEY.map((c) => `NEW.${c}`).join(', ');
  const same = BAND_KEY.map((c) => `${c} = NEW.${c}`).join(' AND ');
  // a SELECT with a WHERE: SQLite would read ON CONFLICT's ON as a join of a SELECT without one
  const statements = [
    `INSERT INTO ${snr} (hardware_device_id, bucket, snr_count, snr_sum) SELECT NEW.hardware_device_id, NEW.bucket, NEW.snr_count, NEW.snr_sum WHERE NEW.is_wireless ` +
      `ON CONFLICT (hardware_device_id, bucket) DO UPDATE SET snr_count = ${snr}.snr_count + excluded.snr_count, snr_sum = ${snr}.snr_sum + excluded.snr_sum;`,
    `INSERT INTO ${band} (${BAND_KEY.join(', ')}, row_count) SELECT ${values}, NEW.row_count WHERE NEW.is_wireless AND NEW.radio_band > '' ` +
      `ON CONFLICT (${BAND_KEY.join(', ')}) DO UPDATE SET row_count = ${band}.row_count + excluded.row_count;`,
    `DELETE FROM ${band} WHERE ${same} AND row_count <= 0;`,
  ].join('\n');
  const name = `${old}_insert`;
  if (postgres) {
    await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN\n${statements}\nRETURN NULL; END $$`).execute(db);
    await sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON ${old} FOR EACH ROW EXECUTE FUNCTION ${name}()`).execute(db);
  } else {
    await sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON ${old} BEGIN\n${statements}\nSELECT RAISE(IGNORE); END`).execute(db);
  }
}
