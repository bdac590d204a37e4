import type { ColumnDataType, ColumnDefinitionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

const KEY_SCOPES_CHECK = `scope IN ('read', 'read_write', 'ingest')`;

/**
 * Device reports (docs/reports.md): the ingest key scope, each device's latest
 * state, report receipts for dedupe, time series and their 5-minute rollups,
 * client history and the event log. Additive but for the api_keys CHECK, which
 * only widens: servers of the previous version never see an ingest key used.
 */
export async function up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  await widenKeyScopes(db, dialect);
  await addDeviceState(db, dialect);
  await createStateTables(db, dialect);
  await createSeries(db, dialect);
  await createRollups(db, dialect);
  await createHistory(db, dialect);
}

/** The column helpers of this migration. */
function columns(dialect: SqlDialect) {
  const t = dialect.types;
  return {
    t,
    big: (dialect.name === 'postgres' ? 'bigint' : 'integer') as ColumnDataType,
    float: (dialect.name === 'postgres' ? 'double precision' : 'real') as ColumnDataType,
    id: (c: ColumnDefinitionBuilder) =>
      dialect.name === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
  };
}

/**
 * api_keys.scope accepts 'ingest'. SQLite cannot alter a CHECK constraint:
 * the table is rebuilt as its documentation describes (create, copy, drop,
 * rename, indexes again), inside the migration's transaction. Nothing
 * references api_keys, so dropping it breaks no foreign key.
 */
async function widenKeyScopes(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  if (dialect.name === 'postgres') {
    await sql`ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check`.execute(db);
    await sql.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (${KEY_SCOPES_CHECK})`).execute(db);
    return;
  }
  const { t, id } = columns(dialect);
  await db.schema
    .createTable('api_keys_new')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('label', t.text, (c) => c.notNull())
    .addColumn('prefix', t.text, (c) => c.notNull())
    .addColumn('secret_hash', t.text, (c) => c.notNull().unique())
    .addColumn('scope', t.text, (c) => c.notNull().check(sql.raw(KEY_SCOPES_CHECK)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_used_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .execute();
  await sql`INSERT INTO api_keys_new (id, uuid, company_id, label, prefix, secret_hash, scope, created_at, last_used_at, revoked_at)
    SELECT id, uuid, company_id, label, prefix, secret_hash, scope, created_at, last_used_at, revoked_at FROM api_keys`.execute(db);
  await db.schema.dropTable('api_keys').execute();
  await sql`ALTER TABLE api_keys_new RENAME TO api_keys`.execute(db);
  await db.schema.createIndex('api_keys_company_idx').on('api_keys').column('company_id').execute();
}

/**
 * What a device's reports say about it. reported_online is NULL until its
 * first report: until then the imported is_connected_to_backend stands.
 * state_observed_at is the observedAt of the report its latest state (ports,
 * radios, clients, uptime, MAC) came from; an older report changes none of it.
 */
async function addDeviceState(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, big } = columns(dialect);
  await db.schema.alterTable('hardware_devices').addColumn('last_seen_at', t.timestamp).execute();
  await db.schema.alterTable('hardware_devices').addColumn('reported_online', t.boolean).execute();
  await db.schema.alterTable('hardware_devices').addColumn('uptime_seconds', big).execute();
  await db.schema.alterTable('hardware_devices').addColumn('mac_address', t.text).execute();
  await db.schema.alterTable('hardware_devices').addColumn('state_observed_at', t.timestamp).execute();
  // the offline checker's scan: online devices by the time of their last report
  await db.schema.createIndex('hardware_devices_last_seen_idx').on('hardware_devices').column('last_seen_at').execute();

  await db.schema.alterTable('network_clients').addColumn('hostname', t.text).execute();
  await db.schema
    .alterTable('network_clients')
    .addColumn('is_wireless', t.boolean, (c) => c.notNull().defaultTo(dialect.name === 'postgres' ? false : 0))
    .execute();
  await db.schema.alterTable('network_clients').addColumn('signal', t.integer).execute();
  await db.schema.alterTable('network_clients').addColumn('vlan_id', t.integer).execute();
  await db.schema.alterTable('network_clients').addColumn('ssid', t.text).execute();
  await db.schema.alterTable('network_clients').addColumn('port_number', t.integer).execute();
  // the device whose report listed the client last; NULL for imported clients
  await db.schema
    .alterTable('network_clients')
    .addColumn('hardware_device_id', t.id, (c) => c.references('hardware_devices.id').onDelete('set null'))
    .execute();
  await db.schema
    .createIndex('network_clients_device_idx')
    .on('network_clients')
    .columns(['hardware_device_id', 'is_connected'])
    .execute();
}

/** Report receipts (dedupe) and each device's latest ports and radios. */
async function createStateTables(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id } = columns(dialect);
  await db.schema
    .createTable('report_receipts')
    .addColumn('id', t.id, id)
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('report_id', t.text, (c) => c.notNull())
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('received_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('report_receipts_company_report_key', ['company_id', 'report_id'])
    .execute();
  await db.schema.createIndex('report_receipts_observed_idx').on('report_receipts').column('observed_at').execute();
  await db.schema.createIndex('report_receipts_device_idx').on('report_receipts').column('hardware_device_id').execute();

  await db.schema
    .createTable('device_ports')
    .addColumn('id', t.id, id)
    // the API's PhyInterface.UUID: stable while the device keeps reporting the port
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('label', t.text)
    .addColumn('port_type', t.text)
    .addColumn('is_enabled', t.boolean, (c) => c.notNull())
    .addColumn('is_connected', t.boolean, (c) => c.notNull())
    .addColumn('is_uplink', t.boolean, (c) => c.notNull())
    .addColumn('is_uplink_active', t.boolean)
    .addColumn('is_trunk_port', t.boolean, (c) => c.notNull())
    .addColumn('port_speed_mbps', t.integer)
    .addColumn('native_vlan_id', t.integer)
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('device_ports_device_port_key', ['hardware_device_id', 'port_number'])
    .execute();

  await db.schema
    .createTable('device_radios')
    .addColumn('id', t.id, id)
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('bssid', t.text, (c) => c.notNull())
    .addColumn('radio_band', t.text, (c) => c.notNull())
    .addColumn('ssid', t.text)
    .addColumn('is_active', t.boolean, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('device_radios_device_bssid_key', ['hardware_device_id', 'bssid'])
    .execute();
}

/**
 * Raw time series, each row at its own observedAt. network_id is the
 * device's network when the report arrived (NULL for unassigned hardware);
 * every table reaches its company through networks or hardware_devices.
 */
async function createSeries(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, big, float } = columns(dialect);
  const network = (c: ColumnDefinitionBuilder) => c.references('networks.id').onDelete('cascade');
  const device = (c: ColumnDefinitionBuilder) => c.notNull().references('hardware_devices.id').onDelete('cascade');

  // PostgreSQL: partitioned by day, so that expiry drops whole partitions (db/partitions.ts); a
  // DEFAULT partition takes rows of days without their own, which expiry deletes in batches
  const byDay = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect.partitionsByTime ? builder.modifyEnd(sql`PARTITION BY RANGE (observed_at)`) : builder;
  await byDay(db.schema
    .createTable('uplink_samples')
    .addColumn('network_id', t.id, network)
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('latency_ms', float)
    .addColumn('jitter_ms', float)
    .addColumn('loss_percent', float)
    .addColumn('rx_bps', float)
    .addColumn('tx_bps', float))
    .execute();
  await db.schema.createIndex('uplink_samples_network_idx').on('uplink_samples').columns(['network_id', 'observed_at']).execute();
  await db.schema.createIndex('uplink_samples_observed_idx').on('uplink_samples').column('observed_at').execute();

  let counters = db.schema
    .createTable('port_counters')
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('uptime_seconds', big);
  for (const counter of COUNTERS) counters = counters.addColumn(counter, big, (c) => c.notNull());
  await byDay(counters).execute();
  await db.schema
    .createIndex('port_counters_device_idx')
    .on('port_counters')
    .columns(['hardware_device_id', 'port_number', 'observed_at'])
    .execute();
  await db.schema.createIndex('port_counters_observed_idx').on('port_counters').column('observed_at').execute();

  await byDay(db.schema
    .createTable('client_observations')
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('hardware_device_id', t.id, device)
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('is_wireless', t.boolean, (c) => c.notNull()))
    .execute();
  await db.schema
    .createIndex('client_observations_network_idx')
    .on('client_observations')
    .columns(['network_id', 'observed_at'])
    .execute();
  await db.schema.createIndex('client_observations_observed_idx').on('client_observations').column('observed_at').execute();
  if (dialect.partitionsByTime) {
    for (const table of RAW_SERIES) await sql`CREATE TABLE ${sql.table(`${table}_default`)} PARTITION OF ${sql.table(table)} DEFAULT`.execute(db);
  }
}

/** The raw time series, partitioned by day on PostgreSQL. */
const RAW_SERIES = ['uplink_samples', 'port_counters', 'client_observations'] as const;

/** The six cumulative counters of a port, as columns. */
const COUNTERS = ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_errors', 'tx_errors'] as const;

/**
 * 5-minute rollups (bucket = the bucket's start in epoch seconds), upserted at
 * ingest. Uplink metrics keep count, sum, min and max so that averages over
 * longer steps weigh every sample alike.
 */
async function createRollups(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, big, float } = columns(dialect);
  let uplink = db.schema
    .createTable('uplink_rollups')
    .addColumn('network_id', t.id, (c) => c.references('networks.id').onDelete('cascade'))
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull());
  for (const metric of UPLINK_METRICS) {
    uplink = uplink
      .addColumn(`${metric}_count`, t.integer, (c) => c.notNull())
      .addColumn(`${metric}_sum`, float, (c) => c.notNull())
      .addColumn(`${metric}_min`, float)
      .addColumn(`${metric}_max`, float);
  }
  await uplink.addUniqueConstraint('uplink_rollups_key', ['hardware_device_id', 'port_number', 'bucket']).execute();
  await db.schema.createIndex('uplink_rollups_network_idx').on('uplink_rollups').columns(['network_id', 'bucket']).execute();
  await db.schema.createIndex('uplink_rollups_bucket_idx').on('uplink_rollups').column('bucket').execute();

  await db.schema
    .createTable('client_presence_rollups')
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('bucket', big, (c) => c.notNull())
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('is_wireless', t.boolean, (c) => c.notNull())
    .addUniqueConstraint('client_presence_rollups_key', ['network_id', 'bucket', 'mac_address', 'is_wireless'])
    .execute();
  await db.schema.createIndex('client_presence_rollups_bucket_idx').on('client_presence_rollups').column('bucket').execute();

  let counters = db.schema
    .createTable('port_counter_rollups')
    .addColumn('hardware_device_id', t.id, (c) => c.notNull().references('hardware_devices.id').onDelete('cascade'))
    .addColumn('port_number', t.integer, (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull())
    // the bucket's last reading
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    .addColumn('uptime_seconds', big);
  for (const counter of COUNTERS) counters = counters.addColumn(counter, big, (c) => c.notNull());
  await counters.addUniqueConstraint('port_counter_rollups_key', ['hardware_device_id', 'port_number', 'bucket']).execute();
  await db.schema.createIndex('port_counter_rollups_bucket_idx').on('port_counter_rollups').column('bucket').execute();

  await db.schema
    .createTable('report_rollups')
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('bucket', big, (c) => c.notNull())
    .addColumn('report_count', t.integer, (c) => c.notNull())
    .addUniqueConstraint('report_rollups_key', ['network_id', 'bucket'])
    .execute();
  await db.schema.createIndex('report_rollups_bucket_idx').on('report_rollups').column('bucket').execute();
}

/** The uplink metrics a rollup aggregates, as column prefixes. */
const UPLINK_METRICS = ['latency_ms', 'jitter_ms', 'loss_percent', 'rx_bps', 'tx_bps'] as const;

/** Client history and the event log, kept EVENT_RETENTION_DAYS. */
async function createHistory(db: Kysely<unknown>, dialect: SqlDialect): Promise<void> {
  const { t, id } = columns(dialect);
  await db.schema
    .createTable('client_sessions')
    .addColumn('id', t.id, id)
    .addColumn('network_id', t.id, (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('mac_address', t.text, (c) => c.notNull())
    .addColumn('hardware_device_id', t.id, (c) => c.references('hardware_devices.id').onDelete('set null'))
    .addColumn('ssid', t.text)
    .addColumn('vlan_id', t.integer)
    .addColumn('signal', t.integer)
    .addColumn('ip', t.text)
    .addColumn('hostname', t.text)
    .addColumn('first_seen', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen', t.timestamp, (c) => c.notNull())
    .addColumn('ended_at', t.timestamp)
    .execute();
  // at most one open session per client of a network: the target of the ingest's upsert
  await db.schema
    .createIndex('client_sessions_open_key')
    .on('client_sessions')
    .columns(['network_id', 'mac_address'])
    .unique()
    .where(sql.ref('ended_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('client_sessions_network_idx')
    .on('client_sessions')
    .columns(['network_id', 'mac_address', 'first_seen'])
    .execute();
  await db.schema.createIndex('client_sessions_last_seen_idx').on('client_sessions').column('last_seen').execute();

  await db.schema
    .createTable('events')
    .addColumn('id', t.id, id)
    .addColumn('uuid', t.uuid, (c) => c.notNull().unique())
    .addColumn('company_id', t.id, (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('network_id', t.id, (c) => c.references('networks.id').onDelete('cascade'))
    .addColumn('hardware_device_id', t.id, (c) => c.references('hardware_devices.id').onDelete('set null'))
    // the virtual device the hardware was assigned to when the event happened
    .addColumn('virtual_device_id', t.id, (c) => c.references('virtual_devices.id').onDelete('set null'))
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('observed_at', t.timestamp, (c) => c.notNull())
    // JSON text, or NULL when the event has no details
    .addColumn('details', t.text)
    .addColumn('source', t.text, (c) => c.notNull().check(sql.raw(`source IN ('device', 'netgraph')`)))
    .execute();
  await db.schema.createIndex('events_network_idx').on('events').columns(['network_id', 'observed_at', 'id']).execute();
  await db.schema.createIndex('events_network_type_idx').on('events').columns(['network_id', 'type', 'observed_at']).execute();
  await db.schema.createIndex('events_company_idx').on('events').columns(['company_id', 'observed_at']).execute();
  await db.schema.createIndex('events_observed_idx').on('events').column('observed_at').execute();
}
