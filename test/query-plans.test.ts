import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addSqlFunctions } from '../src/db/sqlite.js';
import { GraphQLList, GraphQLNonNull } from 'graphql';
import type { GraphQLOutputType } from 'graphql';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, migrateUpTo } from '../src/db/migrate.js';
import { openStore } from '../src/db/open-store.js';
import { withSessionSetting } from '../src/db/postgres.js';
import type { Store } from '../src/db/store.js';
import { generateDataset } from '../src/tools/demo/dataset.js';
import type { QueryRootName } from '../src/engine/features.js';
import { createSchema } from '../src/engine/schema.js';
import { startTestApp } from './helpers/app.js';
import { ROOT_QUERIES as SHARED_ROOT_QUERIES } from './helpers/root-queries.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';

/**
 * The plans of the compiled reads on a database loaded by `netgraph import`
 * and never analyzed (issue 31): a read of one network must reach the
 * network's own rows through an index's leading column, whatever the
 * planner guesses without statistics. Each network has 40 clients among
 * 200 networks' 8,000, so a plan that walks another column's index over
 * the whole table (the BitmapAnd over network_clients_device_idx for
 * is_connected) visits 200 times more rows than the network holds.
 */
const SCALE = { companies: 4, networksPerCompany: 50, devicesPerNetwork: 10, clientsPerNetwork: 40, seed: 31, slugPrefix: 'plans' } as const;
/** The most rows any one scan of a read may visit per loop: twice the largest list one read owns (a company's networks). */
const ROWS_PER_SCAN = 2 * Math.max(SCALE.networksPerCompany, SCALE.clientsPerNetwork, SCALE.devicesPerNetwork);

/** The tables an import loads: it leaves statistics of each, and no read may scan one whole. */
const LOADED = ['companies', 'networks', 'virtual_devices', 'hardware_devices', 'vlans', 'ssids', 'network_clients'];

/** A query of every Query root (the statement test's), the network's devices with their hardware too. */
const ROOT_QUERIES: Record<QueryRootName, string> = {
  ...SHARED_ROOT_QUERIES,
  virtualDevicesForNetwork: '{ virtualDevicesForNetwork(networkUUID: "$NETWORK") { UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber } } }',
};

/** The Query roots whose answer is a list, or an object holding one: those this test is about first. */
function listRoots(): string[] {
  const holdsList = (type: GraphQLOutputType): boolean => {
    const inner = type instanceof GraphQLNonNull ? type.ofType : type;
    if (inner instanceof GraphQLList) return true;
    return 'getFields' in inner && Object.values(inner.getFields()).some((field) => (field.type instanceof GraphQLNonNull ? field.type.ofType : field.type) instanceof GraphQLList);
  };
  const fields = createSchema().getQueryType()?.getFields() ?? {};
  return Object.values(fields)
    .filter((field) => holdsList(field.type))
    .map((field) => field.name);
}

const dataset = generateDataset(SCALE);
const company = dataset.companies[1]!;
const network = company.networks[17]!;
const device = network.virtualDevices.find((d) => d.hardwareDevice)!;
/** The company's UUID, which the import gives it. */
let companyUuid = '';
/** An alert receiver of the company, made after the import. */
let receiverUuid = '';
/** A collector target of the company (for the device above), made after the import. */
let targetUuid = '';
/** A discovery range of the company, made after the import. */
let rangeUuid = '';
const fill = (query: string): string =>
  query
    .replaceAll('$RECEIVER', receiverUuid)
    .replaceAll('$TARGET', targetUuid)
    .replaceAll('$RANGE', rangeUuid)
    .replaceAll('$SLUG', company.slug)
    .replaceAll('$COMPANY', companyUuid)
    .replaceAll('$NETSLUG', network.slug)
    .replaceAll('$NETWORK', network.UUID)
    .replaceAll('$DEVICE', device.UUID)
    .replaceAll('$SERIAL', device.hardwareDevice!.serialNumber)
    .replaceAll('$VLAN', network.vlans[0]!.UUID!)
    .replaceAll('$SSID', network.ssids[0]!.UUID!);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-plans-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const dataFile = path.join(tmp, 'data.json');
fs.writeFileSync(dataFile, JSON.stringify(dataset));

/** One statement as the read path ran it. */
interface RanStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** Starts a server on a fresh database, loads the dataset with `netgraph import`, and records the statements its reads run. */
async function importedApp(kind: 'sqlite' | 'postgres'): Promise<{ app: TestApp; ran: RanStatement[] }> {
  const app = await startTestApp(kind, { backgroundWork: false });
  const imported = await runNetgraph(['import', dataFile, '--json'], { DATABASE_URL: app.database.url });
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  const ran: RanStatement[] = [];
  const store = app.server.store;
  const selectRow = store.selectRow.bind(store);
  store.selectRow = (text, params, options) => {
    ran.push({ text, params });
    return selectRow(text, params, options);
  };
  const res = await app.graphql(`{ companyBySlug(slug: "${company.slug}") { uuid } }`, { key: await app.createKey(company.slug) });
  companyUuid = res.body.data.companyBySlug.uuid;
  receiverUuid = await createReceiver(app, company.slug);
  const caller = await app.server.services.webhooks.cliCaller(company.slug);
  targetUuid = (await app.server.services.collectorTargets.create(caller, { virtualDeviceUUID: device.UUID, host: '192.0.2.10', snmp: { version: '2c', community: 'public' } })).UUID;
  rangeUuid = (await app.server.services.collectorRanges.create(caller, { range: '192.0.2.0/24', snmp: { version: '2c', community: 'public' } })).UUID;
  return { app, ran };
}

/** Creates an alert receiver of the company (its target: a webhook endpoint) and returns its UUID. */
async function createReceiver(app: TestApp, slug: string): Promise<string> {
  const { webhooks, alerts } = app.server.services;
  const caller = await webhooks.cliCaller(slug);
  const { endpoint } = await webhooks.createEndpoint(caller, { label: 'hook', url: 'https://hooks.example.com/x', rules: [{ alert: 'WAN_UP' }] });
  return (await alerts.createReceiver(caller, { label: 'NOC', targets: [{ type: 'WEBHOOK', webhookEndpointId: endpoint.id }], rules: [{ alert: 'DEVICE_OFFLINE' }] })).id;
}

/** Runs `query` over HTTP as the company's key and returns the one statement it ran, and its answer. */
async function readOf(app: TestApp, ran: RanStatement[], key: string, query: string): Promise<{ statement: RanStatement; body: unknown }> {
  ran.length = 0;
  const res = await app.graphql(fill(query), { key });
  expect(res.status, res.text).toBe(200);
  expect(res.body.errors, res.text).toBeUndefined();
  expect(ran).toHaveLength(1);
  return { statement: ran[0]!, body: res.body.data };
}

it('names every Query root, and the list roots are among them', () => {
  const fields = Object.keys(createSchema().getQueryType()?.getFields() ?? {});
  expect(Object.keys(ROOT_QUERIES).sort()).toEqual([...fields].sort());
  expect(listRoots()).toEqual(expect.arrayContaining(['networkClients', 'networksClients', 'virtualDevicesForNetwork', 'vlans', 'recentEventLogEventsPage']));
});

describe.runIf(storeKinds().includes('postgres'))('plans on PostgreSQL after netgraph import, without statistics', () => {
  let app: TestApp;
  let ran: RanStatement[];
  let client: pg.Client;
  let key: string;
  beforeAll(async () => {
    ({ app, ran } = await importedApp('postgres'));
    key = await app.createKey(company.slug);
    // the read pool's sessions: generic plans
    client = new pg.Client({ connectionString: withSessionSetting(app.database.url, 'plan_cache_mode', 'force_generic_plan') });
    await client.connect();
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await app?.close();
  });

  it('import leaves statistics for what it loaded', async () => {
    const { rows } = await client.query<{ relname: string; reltuples: number; stats: string }>(
      `SELECT c.relname, c.reltuples, (SELECT count(*) FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = c.relname) AS stats
         FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1)`,
      [LOADED],
    );
    expect(rows).toHaveLength(LOADED.length);
    for (const row of rows) {
      expect(row.reltuples, row.relname).toBeGreaterThan(0);
      expect(Number(row.stats), row.relname).toBeGreaterThan(0);
    }
  });

  it.each(Object.keys(ROOT_QUERIES) as QueryRootName[])('%s reads the rows it answers with, not whole tables', async (root) => {
    await forgetStatistics(client);
    const { statement } = await readOf(app, ran, key, ROOT_QUERIES[root]);
    expectOwnRows(root, await explain(client, statement));
    const answer = await execute(client, statement);
    // analyzed, prepared again: the same answer, whatever the plan (on tables this small, seq scans may well win)
    await app.server.store.analyze();
    await explain(client, statement);
    expect(await execute(client, statement)).toEqual(answer);
  });

  it('switchPortStats reads each port in its own index range, with no lookup per reading', async () => {
    await addCounterReadings(app);
    for (const statistics of ['forgotten', 'analyzed']) {
      if (statistics === 'forgotten') await forgetStatistics(client);
      else await app.server.store.analyze();
      const { statement } = await readOf(app, ran, key, ROOT_QUERIES.switchPortStats);
      const plan = await explain(client, statement);
      // the readings' tables (port_counters' day partitions too): a scan per port at most, not one per reading
      const loops = loopsOf(plan.Plan).filter((scan) => /^port_counter/.test(scan.relation));
      expect(loops.length, statistics).toBeGreaterThan(0);
      for (const scan of loops) expect(scan.loops, `${statistics}: ${scan.node} loops\n${JSON.stringify(plan.Plan, null, 1)}`).toBeLessThanOrEqual(2 * COUNTER_PORTS + 2);
    }
  });
});

describe('plans on SQLite after netgraph import, with and without statistics', () => {
  let app: TestApp;
  let ran: RanStatement[];
  let key: string;
  let file: string;
  beforeAll(async () => {
    ({ app, ran } = await importedApp('sqlite'));
    key = await app.createKey(company.slug);
    file = app.database.url.slice('sqlite:'.length);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('import leaves statistics for what it loaded', () => {
    const connection = new Database(file, { readonly: true });
    try {
      const analyzed = connection.prepare('SELECT DISTINCT tbl FROM sqlite_stat1').all() as { tbl: string }[];
      expect(analyzed.map((row) => row.tbl)).toEqual(expect.arrayContaining(LOADED));
    } finally {
      connection.close();
    }
  });

  it.each(Object.keys(ROOT_QUERIES) as QueryRootName[])('%s searches the loaded tables by index, and answers alike', async (root) => {
    const { statement, body } = await readOf(app, ran, key, ROOT_QUERIES[root]);
    expect(fullScans(file, statement), root).toEqual([]);
    // without statistics: the server's connection drops them and reloads (ANALYZE sqlite_schema)
    await sql`DELETE FROM sqlite_stat1`.execute(app.server.store.db);
    await sql`ANALYZE sqlite_schema`.execute(app.server.store.db);
    expect(fullScans(file, statement), root).toEqual([]);
    expect((await readOf(app, ran, key, ROOT_QUERIES[root])).body).toEqual(body);
    await app.server.store.analyze();
  });

  it('switchPortStats reads each port in its own index range, with no lookup per reading', async () => {
    await addCounterReadings(app);
    const { statement, body } = await readOf(app, ran, key, ROOT_QUERIES.switchPortStats);
    expect(body).toEqual({ switchPortStats: expect.arrayContaining([expect.objectContaining({ portNumber: 1, totalRxBytes: COUNTER_READINGS * 1000 })]) });
    // every read of the readings (pr) and of a baseline (pb) names the port, never the whole device's
    const searches = planLines(file, statement).filter((detail) => /^SEARCH (pr|pb) /.test(detail));
    expect(searches.length).toBeGreaterThan(0);
    expect(searches.filter((detail) => !/\(hardware_device_id=\? AND port_number[=>]\?/.test(detail))).toEqual([]);
  });
});

describe.each(storeKinds())('migrations on %s', (kind) => {
  it('leave every table analyzed when one ran', async () => {
    const database = await createTestDatabase(kind);
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateUpTo(store, '0007-ingest-indexes');
      expect(await analyzedTables(store)).toEqual([]);
      expect((await migrateToLatest(store)).length).toBeGreaterThan(0);
      const analyzed = await analyzedTables(store);
      // SQLite writes no statistics of an empty table with indexes: that ANALYZE ran is what it can show
      if (kind === 'postgres') expect(analyzed).toEqual(expect.arrayContaining(['companies', 'network_clients', 'api_keys', 'events']));
      else expect(analyzed.length).toBeGreaterThan(0);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});

describe('statistics on SQLite', () => {
  it('never say an index is empty, which the planner would go on trusting as its table grows', async () => {
    const database = await createTestDatabase('sqlite');
    const store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateToLatest(store);
      const { rows } = await sql<{ idx: string; stat: string }>`SELECT idx, stat FROM sqlite_stat1 ORDER BY idx`.execute(store.db);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((row) => /^0( |$)/.test(row.stat))).toEqual([]);
      // the open client sessions' partial index, analyzed empty, is the one the session updates of ingest need
      const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN UPDATE client_sessions SET ended_at = k.last_seen
        FROM (SELECT value ->> 0 AS network_id, value ->> 1 AS mac_address, value ->> 2 AS last_seen FROM json_each(${'[[1, "02:00:00:00:00:01", "2026-11-28T00:00:00Z"]]'})) AS k
        WHERE client_sessions.network_id IN (SELECT value FROM json_each(${'[1]'}))
          AND client_sessions.network_id = k.network_id AND client_sessions.mac_address = k.mac_address
          AND client_sessions.ended_at IS NULL AND client_sessions.last_seen <= k.last_seen`.execute(store.db);
      expect(plan.rows.map((row) => row.detail)).toContain('SEARCH client_sessions USING INDEX client_sessions_open_key (network_id=? AND mac_address=?)');
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('are dropped at open when an earlier version left some', async () => {
    const database = await createTestDatabase('sqlite');
    let store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
    try {
      await migrateToLatest(store);
      // what the previous version's ANALYZE of a new database wrote
      await sql`INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('client_sessions', 'client_sessions_open_key', '0 0 0')`.execute(store.db);
      await store.close();
      store = await openStore(loadConfig({ DATABASE_URL: database.url }).database);
      const { rows } = await sql<{ stat: string }>`SELECT stat FROM sqlite_stat1 WHERE idx = 'client_sessions_open_key'`.execute(store.db);
      expect(rows).toEqual([]);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});

/** The tables of the store that have been analyzed (PostgreSQL: ever; SQLite: those sqlite_stat1 has a row of). */
async function analyzedTables(store: Store): Promise<string[]> {
  if (store.dialect.name === 'postgres') {
    const { rows } = await sql<{ name: string }>`SELECT relname AS name FROM pg_stat_user_tables
      WHERE schemaname = current_schema() AND last_analyze IS NOT NULL ORDER BY relname`.execute(store.db);
    return rows.map((row) => row.name);
  }
  const table = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'`.execute(store.db);
  if (table.rows.length === 0) return [];
  const { rows } = await sql<{ name: string }>`SELECT DISTINCT tbl AS name FROM sqlite_stat1 ORDER BY tbl`.execute(store.db);
  return rows.map((row) => row.name);
}

/** Ports and readings per port that addCounterReadings gives the test's device, one every 30 s up to now. */
const COUNTER_PORTS = 4;
const COUNTER_READINGS = 240;

/** Counter readings of the test's device's hardware: each port's rx_bytes grows 1,000 a reading (no reboot), over the last two hours. */
async function addCounterReadings(app: TestApp): Promise<void> {
  const { db } = app.server.store;
  const hardware = await db
    .selectFrom('hardware_devices')
    .innerJoin('virtual_devices', 'virtual_devices.id', 'hardware_devices.virtual_device_id')
    .select('hardware_devices.id')
    .where('virtual_devices.uuid', '=', device.UUID)
    .executeTakeFirstOrThrow();
  const start = Date.now() - (COUNTER_READINGS + 1) * 30_000;
  const rows = Array.from({ length: COUNTER_PORTS * (COUNTER_READINGS + 1) }, (_, i) => {
    const n = Math.floor(i / COUNTER_PORTS);
    const count = n * 1000;
    return {
      hardware_device_id: hardware.id,
      port_number: (i % COUNTER_PORTS) + 1,
      observed_at: new Date(start + n * 30_000).toISOString(),
      uptime_seconds: 10_000 + n * 30,
      ...{ rx_bytes: count, tx_bytes: count, rx_packets: n, tx_packets: n, rx_errors: 0, tx_errors: 0 },
    };
  });
  await db.deleteFrom('port_counters').where('hardware_device_id', '=', hardware.id).execute();
  await db.insertInto('port_counters').values(rows).execute();
}

/** A PostgreSQL plan's scans with the relation each reads and how many times it ran. */
function loopsOf(node: PlanNode): { node: string; relation: string; loops: number }[] {
  const own = /Scan/.test(node['Node Type']) && node['Relation Name'] !== undefined
    ? [{ node: `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name']}`, relation: node['Relation Name'], loops: node['Actual Loops'] }]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(loopsOf)];
}

/** The lines of SQLite's plan for a statement, on a connection of its own. */
function planLines(file: string, statement: RanStatement): string[] {
  const connection = new Database(file, { readonly: true });
  addSqlFunctions({ defineFunction: (name, fn) => void connection.function(name, { deterministic: true }, fn) });
  try {
    const params = statement.params.map((value) => (typeof value === 'boolean' ? Number(value) : value));
    return (connection.prepare(`EXPLAIN QUERY PLAN ${statement.text}`).all(params) as { detail: string }[]).map((line) => line.detail);
  } finally {
    connection.close();
  }
}

/** The lines of SQLite's plan for a statement (on a connection of its own) that scan a loaded table whole, by its alias. */
function fullScans(file: string, statement: RanStatement): string[] {
  // SQLite's plan names a table by its alias in the statement: FROM network_clients t1 -> "SCAN t1"
  const tableOf = new Map<string, string>();
  for (const match of statement.text.matchAll(/\b(?:FROM|JOIN) (\w+) (\w+)/g)) tableOf.set(match[2]!, match[1]!);
  return planLines(file, statement).filter((detail) => {
    const name = /^SCAN (\w+)/.exec(detail)?.[1];
    return name !== undefined && LOADED.includes(tableOf.get(name) ?? name);
  });
}

/**
 * Puts the schema's tables back in the state a load leaves them in when
 * nothing analyzes: no column statistics, and pg_class's "never analyzed"
 * (reltuples -1, so the planner sizes tables from their pages). Needs a
 * superuser, as the test database's user is.
 */
async function forgetStatistics(client: pg.Client): Promise<void> {
  await client.query(`DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace)`);
  await client.query(
    `UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')`,
  );
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stats WHERE schemaname = current_schema()`);
  expect(Number(rows[0]!.n)).toBe(0);
}

/** A plan node of EXPLAIN (FORMAT JSON), with the fields this test reads. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows': number;
  readonly 'Actual Loops': number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly 'Shared Hit Blocks': number;
  readonly 'Shared Read Blocks': number;
  readonly Plans?: readonly PlanNode[];
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement as the read pool runs it: prepared, with its generic plan. */
async function explain(client: pg.Client, statement: RanStatement): Promise<{ Plan: PlanNode }> {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE plan_under_test AS ${statement.text}`);
  const args = statement.params.map((value) => literal(client, value)).join(', ');
  const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE plan_under_test(${args})`);
  return rows[0]!['QUERY PLAN'][0]!;
}

/** The rows of the statement prepared by `explain`, run with the same parameters. */
async function execute(client: pg.Client, statement: RanStatement): Promise<unknown[]> {
  const args = statement.params.map((value) => literal(client, value)).join(', ');
  return (await client.query(`EXECUTE plan_under_test(${args})`)).rows;
}

/** A parameter value as an SQL literal of unknown type, which EXECUTE casts to the parameter's type. */
function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return client.escapeLiteral(`{${value.map((element) => `"${String(element).replace(/["\\]/g, '\\$&')}"`).join(',')}}`);
  if (value instanceof Date) return client.escapeLiteral(value.toISOString());
  return client.escapeLiteral(String(value));
}

/** Fails unless every scan of the plan visits at most ROWS_PER_SCAN rows per loop. */
function expectOwnRows(root: string, plan: { Plan: PlanNode }): void {
  const worst = scansOf(plan.Plan).reduce((a, b) => (b.rows > a.rows ? b : a), { node: 'none', rows: 0 });
  expect(worst.rows, `${root}: ${worst.node} visits ${worst.rows} rows\n${JSON.stringify(plan.Plan, null, 1)}`).toBeLessThanOrEqual(ROWS_PER_SCAN);
}

/** Every scan node of a plan, with the rows it visits per loop (returned, and removed by its filters). */
function scansOf(node: PlanNode): { node: string; rows: number }[] {
  const own = /Scan/.test(node['Node Type'])
    ? [
        {
          node: `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`.trim(),
          rows: node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0),
        },
      ]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}
