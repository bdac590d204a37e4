import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationResult } from 'kysely';
import { invariant } from '../errors.js';
import type { SqlDialect } from './dialect.js';
import * as initial from './migrations/0001-initial.js';
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
};

async function createMigrator(store: Store): Promise<Migrator> {
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (db) => migration.up(db, store.dialect) };
  }
  return new Migrator({
    db: store.db as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'netgraph_migration',
    migrationLockTableName: 'netgraph_migration_lock',
    ...(store.dialect.name === 'postgres' ? { migrationTableSchema: await currentSchema(store) } : {}),
  });
}

/**
 * The schema the connection's search_path writes to. The migrator looks its
 * tables up across every schema of the database unless it is told which one,
 * so a database with several netgraph schemas (the test suite's) would find
 * another schema's migration tables.
 */
async function currentSchema(store: Store): Promise<string> {
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(store.db);
  const schema = rows[0]?.schema;
  invariant(typeof schema === 'string', 'migrate-no-current-schema');
  return schema;
}

/**
 * Applies every pending migration. Safe to run twice and from several
 * processes at once: the query builder's migrator takes the store's lock
 * (an advisory lock on PostgreSQL, the write lock on SQLite).
 */
export async function migrateToLatest(store: Store): Promise<readonly MigrationResult[]> {
  const { error, results } = await (await createMigrator(store)).migrateToLatest();
  if (error) throw error;
  return results ?? [];
}

/** True when every known migration has been applied. */
export async function isMigrated(store: Store): Promise<boolean> {
  const applied = await (await createMigrator(store)).getMigrations();
  return applied.every((m) => m.executedAt !== undefined);
}
