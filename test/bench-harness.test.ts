// The benchmark harness's correctness, without timing anything: its data
// generator, its oracle (answers computed from the data), netgraph's answers
// to its queries on both stores, and the raw-SQL floor's answers.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportDocument } from '../src/modules/import/import.schema.js';
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

/** Starts the floor with one process on a free port of the test database; resolves when it listens. */
async function startFloor(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [FLOOR], {
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
