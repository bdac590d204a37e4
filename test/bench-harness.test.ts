// The benchmark harness's correctness, without timing anything: its data
// generator, its oracle (answers computed from the data), netgraph's answers
// to its queries on both stores, and the raw-SQL floor's answers.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportDocument } from '../src/platform/import/import.schema.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { storeKinds } from './helpers/stores.js';

interface BenchArg {
  readonly company: string;
  readonly value: string;
}
interface BenchCase {
  readonly id: string;
  readonly root: string;
  readonly netgraph: string;
  args(index: unknown): BenchArg[];
  expected(arg: BenchArg, index: unknown): unknown;
}
interface BenchScale {
  companies: number;
  networksPerCompany: number;
  devicesPerNetwork: number;
  clientsPerNetwork: number;
  bigCompanyNetworks: number;
  seed: number;
}

// bench/ is plain JavaScript with its own package.json; these are the parts the tests use
const cases = (await import(new URL('../bench/lib/cases.mjs', import.meta.url).href)) as {
  CASES: BenchCase[];
  indexDataset(document: ImportDocument): unknown;
  normalize(kase: BenchCase, target: string, data: unknown): unknown;
};
const dataset = (await import(new URL('../bench/lib/dataset.mjs', import.meta.url).href)) as {
  DEFAULT_SCALE: BenchScale;
  generateBenchDataset(scale: BenchScale): ImportDocument;
  countDataset(document: ImportDocument): Record<string, number>;
};

const SMALL: BenchScale = {
  companies: 3,
  networksPerCompany: 4,
  devicesPerNetwork: 6,
  clientsPerNetwork: 8,
  bigCompanyNetworks: 5,
  seed: 99,
};
const FLOOR = new URL('../bench/servers/floor.mjs', import.meta.url).pathname;
const INGEST_FLOOR = new URL('../bench/servers/ingest-floor.mjs', import.meta.url).pathname;

interface Batch {
  readonly company: string;
  readonly reports: number;
  readonly body: string;
}
const ingest = (await import(new URL('../bench/lib/ingest.mjs', import.meta.url).href)) as {
  selectFleet(document: ImportDocument): unknown;
  createBatchFactory(fleet: unknown, startMs: number): { next(): Batch };
};

describe('the benchmark data', () => {
  it('is the same for the same scale and seed, and differs for another seed', () => {
    const a = JSON.stringify(dataset.generateBenchDataset(SMALL));
    expect(JSON.stringify(dataset.generateBenchDataset(SMALL))).toBe(a);
    expect(JSON.stringify(dataset.generateBenchDataset({ ...SMALL, seed: 100 }))).not.toBe(a);
  });

  it('has the default scale of the issue: 20 companies x 50 networks x 20 devices x 100 clients, plus a 500-network company', () => {
    const counts = dataset.countDataset(dataset.generateBenchDataset(dataset.DEFAULT_SCALE));
    expect(counts).toMatchObject({ companies: 21, networks: 1_500, virtualDevices: 30_000, clients: 150_000 });
  });

  it('has unique UUIDs and serial numbers across the regular and the big company', () => {
    const document = dataset.generateBenchDataset(SMALL);
    const uuids: string[] = [];
    const serials: string[] = [];
    for (const company of document.companies) {
      for (const network of company.networks) {
        uuids.push(network.UUID);
        for (const device of network.virtualDevices) {
          uuids.push(device.UUID);
          if (device.hardwareDevice) serials.push(device.hardwareDevice.serialNumber);
        }
      }
    }
    expect(document.companies.map((c) => c.slug)).toEqual(['company-1', 'company-2', 'company-3', 'big-1']);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(new Set(serials).size).toBe(serials.length);
  });

  it('gives every case several argument values, each with its own expected answer', () => {
    const index = cases.indexDataset(dataset.generateBenchDataset(SMALL));
    for (const kase of cases.CASES) {
      const args = kase.args(index);
      const answers = new Set(args.map((arg) => JSON.stringify(kase.expected(arg, index))));
      expect({ id: kase.id, distinct: answers.size }).toEqual({ id: kase.id, distinct: kase.id === 'companyBySlugBig' ? 1 : args.length });
      expect(args.length).toBeGreaterThanOrEqual(kase.id === 'companyBySlugBig' ? 1 : 3);
    }
  });
});

describe.each(storeKinds())('the benchmark queries on %s', (kind) => {
  const document = dataset.generateBenchDataset(SMALL);
  const index = cases.indexDataset(document);
  let app: TestApp;
  const keys = new Map<string, string>();
  beforeAll(async () => {
    app = await startTestApp(kind, { data: document });
    for (const company of document.companies) keys.set(company.slug, await app.createKey(company.slug, 'bench'));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('netgraph answers every argument of every case as the data says', async () => {
    for (const kase of cases.CASES) {
      for (const arg of kase.args(index)) {
        const res = await app.graphql(kase.netgraph, { key: keys.get(arg.company) ?? null, variables: { arg: arg.value } });
        expect({ case: kase.id, arg: arg.value, status: res.status, errors: res.body.errors }).toEqual({
          case: kase.id,
          arg: arg.value,
          status: 200,
          errors: undefined,
        });
        expect(cases.normalize(kase, 'netgraph', res.body.data)).toEqual(kase.expected(arg, index));
      }
    }
  });

  it.runIf(kind === 'postgres')('the raw-SQL floor answers every argument of every case as the data says', async () => {
    const floor = await startFloor(app.database.url);
    try {
      let compared = 0;
      for (const kase of cases.CASES) {
        for (const arg of kase.args(index)) {
          const response = await fetch(`${floor.url}/${kase.root}`, { method: 'POST', body: JSON.stringify({ arg: arg.value }) });
          expect(response.status).toBe(200);
          const body = (await response.json()) as { data: unknown };
          const actual = cases.normalize(kase, 'floor', body.data);
          if (!isDeepStrictEqual(actual, kase.expected(arg, index))) expect({ case: kase.id, arg, actual }).toEqual(kase.expected(arg, index));
          compared += 1;
        }
      }
      expect(compared).toBeGreaterThan(cases.CASES.length * 3);
      const missing = await fetch(`${floor.url}/virtualDevice`, { method: 'POST', body: JSON.stringify({ arg: '99999999-9999-4999-8999-999999999999' }) });
      expect(await missing.json()).toEqual({ data: { virtualDevice: null } });
    } finally {
      await floor.stop();
    }
  });
});

/**
 * The tables ingest writes, each with the columns compared: all but
 * generated ids and UUIDs and the receipt's arrival time.
 */
const INGEST_TABLES: Record<string, string> = {
  report_receipts: 'company_id, report_id, hardware_device_id, observed_at',
  hardware_devices: 'id, serial_number, last_seen_at, reported_online, uptime_seconds, mac_address, state_observed_at, is_connected_to_backend',
  device_ports: 'hardware_device_id, port_number, label, port_type, is_enabled, is_connected, is_uplink, is_uplink_active, is_trunk_port, port_speed_mbps, native_vlan_id, observed_at',
  device_radios: 'hardware_device_id, bssid, radio_band, ssid, is_active, observed_at',
  network_clients: 'network_id, mac_address, ip, last_seen, is_connected, hostname, is_wireless, signal, vlan_id, ssid, port_number, hardware_device_id',
  client_sessions: 'network_id, mac_address, hardware_device_id, ssid, vlan_id, signal, ip, hostname, first_seen, last_seen, ended_at',
  uplink_samples: '*',
  port_counters: '*',
  client_observations: '*',
  client_presence_set_rollups: '*',
  uplink_rollups: '*',
  port_counter_rollups: '*',
  client_metric_rollups: '*',
  report_rollups: '*',
  events: 'company_id, network_id, hardware_device_id, virtual_device_id, type, observed_at, details, source',
};

/** Every row of the ingest tables, each table's rows sorted, so two databases compare whatever their insert order. */
async function ingestRows(app: TestApp): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const sort = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
  if (app.kind === 'sqlite') {
    const db = new Database(app.database.url.slice('sqlite:'.length), { readonly: true });
    try {
      for (const [table, columns] of Object.entries(INGEST_TABLES)) out[table] = sort(db.prepare(`SELECT ${columns} FROM ${table}`).all());
    } finally {
      db.close();
    }
    return out;
  }
  const client = new pg.Client({ connectionString: app.database.url });
  await client.connect();
  try {
    for (const [table, columns] of Object.entries(INGEST_TABLES)) out[table] = sort((await client.query(`SELECT ${columns} FROM ${table}`)).rows);
  } finally {
    await client.end();
  }
  return out;
}

describe.each(storeKinds())('the ingest floor on %s', (kind) => {
  const document = dataset.generateBenchDataset(SMALL);
  let product: TestApp;
  let floorApp: TestApp;
  beforeAll(async () => {
    [product, floorApp] = await Promise.all([startTestApp(kind, { data: document }), startTestApp(kind, { data: document })]);
  });
  afterAll(async () => {
    await Promise.all([product?.close(), floorApp?.close()]);
  });

  it('writes the rows netgraph writes for one batch of the fleet', async () => {
    // an hour back: inside the raw retention, outside the offline window (no transitions), as in the benchmark
    const batch = ingest.createBatchFactory(ingest.selectFleet(document), Date.now() - 3_600_000).next();
    const created = await product.server.services.apiKeys.create({ companySlug: batch.company, label: 'bench', scope: 'ingest' });
    const posted = await product.request('/api/v1/reports', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${created.key}` },
      body: batch.body,
    });
    expect(posted.body).toEqual({ accepted: batch.reports, duplicates: 0, rejected: [] });

    const floor = await startFloor(floorApp.database.url, INGEST_FLOOR);
    try {
      const response = await fetch(`${floor.url}/reports`, { method: 'POST', body: batch.body });
      expect(await response.json()).toMatchObject({ accepted: batch.reports });
    } finally {
      await floor.stop();
    }

    const [expected, actual] = await Promise.all([ingestRows(product), ingestRows(floorApp)]);
    expect(expected.port_counters?.length).toBe(batch.reports * 8);
    expect(expected.client_sessions?.length).toBe(batch.reports * 20);
    // the rollups too: one uplink row and 8 counter rows per device (all samples in one 5-minute bucket or two)
    expect(expected.port_counter_rollups?.length).toBeGreaterThanOrEqual(batch.reports * 8);
    expect(expected.uplink_rollups?.length).toBeGreaterThanOrEqual(batch.reports);
    for (const table of Object.keys(INGEST_TABLES)) expect({ table, rows: actual[table] }).toEqual({ table, rows: expected[table] });
  });
});

/** Starts a floor with one process on a free port of the test database; resolves when it listens. */
async function startFloor(databaseUrl: string, script = FLOOR): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [script], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the floor exited with ${code} before listening`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
