import { Migrator } from 'kysely';
import type { Kysely, Migration, MigrationResult } from 'kysely';
import type { SqlDialect } from './dialect.js';
import * as initial from './migrations/0001-initial.js';
import * as dashboard from './migrations/0002-dashboard.js';
import * as auditLog from './migrations/0003-audit-log.js';
import * as deviceReports from './migrations/0004-device-reports.js';
import * as meterFields from './migrations/0005-meter-fields.js';
import * as webhooks from './migrations/0006-webhooks.js';
import * as ingestIndexes from './migrations/0007-ingest-indexes.js';
import * as clientDeviceIndex from './migrations/0008-client-device-index.js';
import * as mspFields from './migrations/0009-msp-fields.js';
import * as networkSecurity from './migrations/0010-network-security.js';
import * as alertReceivers from './migrations/0011-alert-receivers.js';
import * as switchMacTable from './migrations/0012-switch-mac-table.js';
import * as lldpResources from './migrations/0013-lldp-resources.js';
import * as wirelessClientMetrics from './migrations/0014-wireless-client-metrics.js';
import * as radioChannels from './migrations/0015-radio-channels.js';
import * as pduOutlets from './migrations/0016-pdu-outlets.js';
import * as keyLifetime from './migrations/0017-key-lifetime.js';
import * as changes from './migrations/0018-changes.js';
import * as deviceResources from './migrations/0019-device-resources.js';
import * as apiRequestLog from './migrations/0020-api-request-log.js';
import * as securityObservations from './migrations/0021-security-observations.js';
import * as collectorTargets from './migrations/0022-collector-targets.js';
import * as clientConnectionEvents from './migrations/0024-client-connection-events.js';
import * as alertClaims from './migrations/0025-alert-claims.js';
import * as changeSources from './migrations/0026-change-sources.js';
import * as discoveredDevices from './migrations/0027-discovered-devices.js';
import * as rollupTiers from './migrations/0030-rollup-tiers.js';
import * as collectorDiscovery from './migrations/0033-collector-discovery.js';
import * as stpPortState from './migrations/0034-stp-port-state.js';
import * as resourceTiers from './migrations/0031-resource-tiers.js';
import * as deviceSeriesTiers from './migrations/0032-device-series-tiers.js';
import * as counterTiers from './migrations/0035-counter-tiers.js';
import * as clientMetricTiers from './migrations/0036-client-metric-tiers.js';
import * as collectorRanges from './migrations/0037-collector-ranges.js';
import * as clientObservationSets from './migrations/0040-client-observation-sets.js';
import type { Store } from './store.js';

/** A migration receives the dialect so it can pick column types; nothing else branches. */
interface NetgraphMigration {
  up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void>;
}

/**
 * The one migration history, for both stores. Append only: a released
 * migration is never edited, and each one is additive so that servers of the
 * previous version keep working while it runs.
 */
const MIGRATIONS: Record<string, NetgraphMigration> = {
  '0001-initial': initial,
  '0002-dashboard': dashboard,
  '0003-audit-log': auditLog,
  '0004-device-reports': deviceReports,
  '0005-meter-fields': meterFields,
  '0006-webhooks': webhooks,
  '0007-ingest-indexes': ingestIndexes,
  '0008-client-device-index': clientDeviceIndex,
  '0009-msp-fields': mspFields,
  '0010-network-security': networkSecurity,
  '0011-alert-receivers': alertReceivers,
  '0012-switch-mac-table': switchMacTable,
  '0013-lldp-resources': lldpResources,
  '0014-wireless-client-metrics': wirelessClientMetrics,
  '0015-radio-channels': radioChannels,
  '0016-pdu-outlets': pduOutlets,
  '0017-key-lifetime': keyLifetime,
  '0018-changes': changes,
  '0019-device-resources': deviceResources,
  '0020-api-request-log': apiRequestLog,
  '0021-security-observations': securityObservations,
  '0022-collector-targets': collectorTargets,
  '0024-client-connection-events': clientConnectionEvents,
  '0025-alert-claims': alertClaims,
  '0026-change-sources': changeSources,
  '0027-discovered-devices': discoveredDevices,
  '0030-rollup-tiers': rollupTiers,
  '0033-collector-discovery': collectorDiscovery,
  '0034-stp-port-state': stpPortState,
  '0031-resource-tiers': resourceTiers,
  '0032-device-series-tiers': deviceSeriesTiers,
  '0035-counter-tiers': counterTiers,
  '0036-client-metric-tiers': clientMetricTiers,
  '0037-collector-ranges': collectorRanges,
  '0040-client-observation-sets': clientObservationSets,
};

/**
 * The schema the migration bookkeeping lives in. On PostgreSQL it must be
 * named: the migrator otherwise finds its tables in any schema of the
 * database (another deployment's, or another test's) and skips creating them.
 */
async function migrationSchema(store: Store): Promise<string | undefined> {
  if (store.dialect.name !== 'postgres') return undefined;
  const row = await store.selectRow('SELECT current_schema() AS name', []);
  return typeof row?.name === 'string' ? row.name : undefined;
}

async function createMigrator(store: Store): Promise<Migrator> {
  const schema = await migrationSchema(store);
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (db) => migration.up(db, store.dialect) };
  }
  return new Migrator({
    db: store.db as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'netgraph_migration',
    migrationLockTableName: 'netgraph_migration_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/**
 * Applies every pending migration. Safe to run twice and from several
 * processes at once: the query builder's migrator takes the store's lock
 * (an advisory lock on PostgreSQL, the write lock on SQLite). On a database
 * a newer version has migrated further, it applies nothing and succeeds.
 */
export async function migrateToLatest(store: Store): Promise<readonly MigrationResult[]> {
  const migrator = await createMigrator(store);
  // Nothing pending. The database may also hold migrations of a newer version, which the query
  // builder's migrator would refuse as "corrupted": by the additive rule this version runs on that
  // schema as it is, so a process of the previous version can still start (or restart) mid-upgrade.
  if ((await migrator.getMigrations()).every((m) => m.executedAt !== undefined)) return [];
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  // Statistics of every table once, after the last migration, rather than in the migrations that touch
  // tables: a migration that adds an index or rebuilds a table (SQLite's api_keys) leaves the planner
  // guessing until something analyzes, and every future migration is covered without remembering to.
  // ANALYZE samples a bounded number of rows per table, so this costs seconds on a large database, once per upgrade.
  if (results !== undefined && results.length > 0) await store.analyze();
  return results ?? [];
}

/** Applies the migrations up to and including `name`: for tests of a migration over data of older versions. */
export async function migrateUpTo(store: Store, name: string): Promise<void> {
  const { error } = await (await createMigrator(store)).migrateTo(name);
  if (error) throw error;
}

/** True when every known migration has been applied. */
export async function isMigrated(store: Store): Promise<boolean> {
  const applied = await (await createMigrator(store)).getMigrations();
  return applied.every((m) => m.executedAt !== undefined);
}
