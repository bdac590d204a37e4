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
  let ownAdmin: pg.Client;

  beforeAll(async () => {
    [ours, theirs] = await Promise.all([createTestDatabase('postgres'), createTestDatabase('postgres')]);
    admin = new pg.Client({ connectionString: theirs.url });
    await admin.connect();
    await admin.query('CREATE TABLE their_table (id bigserial PRIMARY KEY)');
    ownAdmin = new pg.Client({ connectionString: ours.url });
    await ownAdmin.connect();
    store = openPostgresStore(ours.url, {});
  });

  afterAll(async () => {
    await store?.close();
    await admin?.end();
    await ownAdmin?.end();
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
    const migrations = tables.find((t) => t.name === 'netgraph_migration_lock');
    expect(migrations?.columns.map((c) => c.name)).toEqual(['id', 'is_locked']);
    // an identity column and a serial one are still seen as generated; a plain one is not
    const column = (table: string, name: string) => tables.find((t) => t.name === table)?.columns.find((c) => c.name === name);
    expect(column('networks', 'id')?.isAutoIncrementing).toBe(true);
    expect(column('networks', 'uuid')?.isAutoIncrementing).toBe(false);
    await ownAdmin.query('CREATE TABLE our_serial (id bigserial PRIMARY KEY, v text)');
    await ownAdmin.query("CREATE TABLE api_request_log_sets_p20000101 PARTITION OF api_request_log_sets FOR VALUES FROM ('2000-01-01') TO ('2000-01-02')");
    const again = await store.db.introspection.getTables();
    expect(again.find((t) => t.name === 'our_serial')?.columns.map((c) => [c.name, c.isAutoIncrementing])).toEqual([
      ['id', true],
      ['v', false],
    ]);
    // a partition is not a table of its own to the migrator
    expect(again.map((t) => t.name)).toContain('api_request_log_sets');
    expect(again.map((t) => t.name)).not.toContain('api_request_log_sets_p20000101');
    await ownAdmin.query('DROP TABLE our_serial, api_request_log_sets_p20000101');
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

  it('starts while another process makes and drops day partitions of its own tables', async () => {
    // expiry drops a day's partitions while other processes start (just after midnight UTC)
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const days = Array.from({ length: 10 }, (_, d) => new Date(Date.UTC(2001, 0, 1 + ((i * 10 + d) % 300))).toISOString().slice(0, 10));
        for (const day of days) {
          const name = `api_request_log_sets_p${day.replaceAll('-', '')}`;
          await ownAdmin.query(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF api_request_log_sets FOR VALUES FROM ('${day}') TO ('${day}'::date + 1)`);
        }
        for (const day of days) await ownAdmin.query(`DROP TABLE IF EXISTS api_request_log_sets_p${day.replaceAll('-', '')}`);
      }
    })();
    try {
      for (let i = 0; i < 40; i++) expect(await migrateToLatest(store)).toEqual([]);
    } finally {
      churning = false;
      await churn;
    }
    // 1 to 3 s alone; 45 s in a full CI run on a slow machine (the suite's other files migrating their own schemas at
    // the same time), and once past vitest's 30 s: the test is about a start never failing, not about its pace
  }, 120_000);
});
