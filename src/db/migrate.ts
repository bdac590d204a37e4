import { readdir } from 'node:fs/promises';
import { Migrator } from 'kysely';
import type { Kysely, Migration, MigrationResult } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Store } from './store.js';

/** A migration receives the dialect so it can pick column types; nothing else branches. */
interface NetgraphMigration {
  up(db: Kysely<unknown>, dialect: SqlDialect): Promise<void>;
}

/**
 * The one migration history, for both stores: every module of
 * `migrations/`, named `NNNN-what-it-does`, applied in name order. Append
 * only: a released migration is never edited, and each one is additive so
 * that servers of the previous version keep working while it runs. A new
 * migration is a new file there and nothing else.
 */
const MIGRATIONS_FOLDER = new URL('./migrations/', import.meta.url);

/** `0001-initial.js` in dist/, `0001-initial.ts` when the sources run (the tests). */
const MIGRATION_FILE = /^((\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*)\.(?:js|ts)$/;
/** What the build puts beside a module. */
const BUILD_OUTPUT = /\.d\.ts$|\.map$/;

let migrations: Promise<Readonly<Record<string, NetgraphMigration>>> | undefined;

/** The migrations of a folder by name; a file that is not one, or two of one number, is an error. */
export async function readMigrationFolder(folder: URL): Promise<Readonly<Record<string, NetgraphMigration>>> {
  const found: Record<string, NetgraphMigration> = {};
  const numbers = new Map<string, string>();
  for (const file of (await readdir(folder)).sort()) {
    if (BUILD_OUTPUT.test(file)) continue;
    const match = MIGRATION_FILE.exec(file);
    if (match === null) throw new Error(`${file} in the migrations folder is not named NNNN-what-it-does.ts (four digits, then lowercase words joined by hyphens)`);
    const [, name, number] = match as unknown as [string, string, string];
    const taken = numbers.get(number);
    if (taken !== undefined) throw new Error(`migrations ${taken} and ${name} share the number ${number}: give the newer one the next free number`);
    numbers.set(number, name);
    const module: Partial<NetgraphMigration> = await import(new URL(file, folder).href);
    if (typeof module.up !== 'function') throw new Error(`migration ${file} exports no up(db, dialect) function`);
    found[name] = { up: module.up };
  }
  return found;
}

/** The migrations of the folder by name, read once per process. */
export function knownMigrations(): Promise<Readonly<Record<string, NetgraphMigration>>> {
  migrations ??= readMigrationFolder(MIGRATIONS_FOLDER);
  return migrations;
}

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
  for (const [name, migration] of Object.entries(await knownMigrations())) {
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
