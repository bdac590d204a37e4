import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { openPostgresStore } from '../src/db/postgres.js';
import type { Store } from '../src/db/store.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

/**
 * Several deployments (or test files) can share one PostgreSQL database, each in a
 * schema of its own. What one does to its schema must not reach another's start.
 */
describe.runIf(storeKinds().includes('postgres'))('migrations in a database other schemas share', () => {
  let ours: TestDatabase;
  let theirs: TestDatabase;
  let store: Store;
  let admin: pg.Client;

  beforeAll(async () => {
    [ours, theirs] = await Promise.all([createTestDatabase('postgres'), createTestDatabase('postgres')]);
    admin = new pg.Client({ connectionString: theirs.url });
    await admin.connect();
    await admin.query('CREATE TABLE their_table (id bigserial PRIMARY KEY)');
    store = openPostgresStore(ours.url, {});
  });

  afterAll(async () => {
    await store?.close();
    await admin?.end();
    await Promise.all([ours?.drop(), theirs?.drop()]);
  });

  it("introspects its own schema only: another schema's tables are not read", async () => {
    await migrateToLatest(store);
    const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
    const names = tables.map((t) => t.name);
    expect(names).toContain('netgraph_migration');
    expect(names).toContain('networks');
    expect(names).not.toContain('their_table');
    expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([new URL(ours.url).searchParams.get('options')?.replace('-c search_path=', '')]));
    // a serial column is still seen as one
    const migrations = tables.find((t) => t.name === 'netgraph_migration_lock');
    expect(migrations?.columns.map((c) => c.name)).toEqual(['id', 'is_locked']);
  });

  it('starts while other schemas are created and dropped around it', async () => {
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const name = `churn_${process.pid}_${i}`;
        await admin.query(`CREATE SCHEMA ${name}; ${Array.from({ length: 20 }, (_, t) => `CREATE TABLE ${name}.t${t} (id bigserial PRIMARY KEY, v text);`).join(' ')}`);
        await admin.query(`DROP SCHEMA ${name} CASCADE`);
      }
    })();
    try {
      for (let i = 0; i < 20; i++) {
        // each run introspects the migration tables, as every process start does
        expect(await migrateToLatest(store)).toEqual([]);
      }
    } finally {
      churning = false;
      await churn;
    }
  });
});
