// The webhook delivery benchmark (issue 13): a burst of 10,000 events (a site losing power) delivered by one
// netgraph process to a local receiver, against a hand-written floor that POSTs the same signed payloads directly,
// with GraphQL reads and report ingest measured before and during the burst. Prints a table; see docs/benchmarks.md.
//   node bench/webhooks.mjs [--events N] [--database sqlite|postgres|both] [--concurrency N]
// Needs dist/ (npm run build). PostgreSQL: BENCH_DATABASE_URL (default postgres://root@127.0.0.1:5432/postgres), in a schema of its own.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../dist/config.js';
import { migrateToLatest } from '../dist/db/migrate.js';
import { generateDataset } from '../dist/tools/demo/dataset.js';
import { openRuntime } from '../dist/runtime.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({ options: { events: { type: 'string' }, database: { type: 'string' }, concurrency: { type: 'string' } } });
const EVENTS = Number(values.events ?? 10_000);
const CONCURRENCY = Number(values.concurrency ?? 32);
const STORES = values.database === 'sqlite' || values.database === 'postgres' ? [values.database] : ['sqlite', 'postgres'];
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/postgres';

/** A receiver that answers 200 at once and counts; `until(n)` resolves when n arrived. */
async function startReceiver() {
  let count = 0;
  let last = 0;
  const waiters = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200).end('ok');
      count += 1;
      last = performance.now();
      for (const waiter of waiters.filter((w) => count >= w.n)) waiter.resolve(last);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    count: () => count,
    reset: () => (count = 0),
    until: (n) => (count >= n ? Promise.resolve(last) : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/** The floor: the same payloads, signed the same way, POSTed directly with CONCURRENCY keep-alive connections. */
async function floor(receiver, payloads, secret) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const url = new URL(receiver.url);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < payloads.length) {
      const body = payloads[next++];
      const id = `msg_${randomUUID().replaceAll('-', '')}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
      await new Promise((resolve, reject) => {
        const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature } }, (response) => {
          response.resume();
          response.on('end', resolve);
        });
        request.on('error', reject);
        request.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return payloads.length / ((performance.now() - started) / 1000);
}

/** Latencies (ms) of GraphQL reads and report posts, in a loop until `stop()`. */
function probe(baseUrl, readKey, ingestKey, serial) {
  const reads = [];
  const ingest = [];
  let stopped = false;
  const query = JSON.stringify({ query: '{ companyBySlug(slug: "site-1") { name networks { label } } }' });
  const timed = async (into, init, pathname) => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${pathname}`, init);
    await response.arrayBuffer();
    into.push(performance.now() - started);
  };
  // a failed request ends the probe's loop (the server is stopping); it never hides the run's own error
  const loop = async (fn) => {
    while (!stopped) await fn().catch(() => (stopped = true));
  };
  const running = Promise.all([
    loop(() => timed(reads, { method: 'POST', headers: { authorization: `Bearer ${readKey}`, 'content-type': 'application/json' }, body: query }, '/api/v1/graphql')),
    loop(() => timed(ingest, { method: 'POST', headers: { authorization: `Bearer ${ingestKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ reports: [{ reportId: randomUUID(), serialNumber: serial, observedAt: new Date().toISOString(), uptimeSeconds: 10 }] }) }, '/api/v1/reports')),
  ]);
  return async () => {
    stopped = true;
    await running;
    return { reads: summary(reads), ingest: summary(ingest) };
  };
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99) };
}

async function prepareDatabase(kind, dir) {
  if (kind === 'sqlite') return { url: `sqlite:${path.join(dir, 'bench.db')}`, drop: async () => undefined };
  const schema = `bench_webhooks_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: PG_BASE });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = new URL(PG_BASE);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_BASE });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

async function startServer(env) {
  const probePort = http.createServer();
  await new Promise((resolve) => probePort.listen(0, '127.0.0.1', resolve));
  const { port } = probePort.address();
  await new Promise((resolve) => probePort.close(resolve));
  // LOG_LEVEL=info, as users run it (a log line per request), which also says when it listens
  const child = spawn(process.execPath, ['bin/netgraph.js', 'serve', '--port', String(port)], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c) => {
    if (output.length < 100_000) output += c;
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`netgraph exited (${signal ?? code}):\n${output.slice(-3000)}`);
  });
  for (let i = 0; i < 400 && !output.includes('listening'); i++) await new Promise((r) => setTimeout(r, 50));
  if (!output.includes('listening')) throw new Error(`server did not start:\n${output}`);
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); }) };
}

async function runStore(kind) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-bench-webhooks-'));
  const database = await prepareDatabase(kind, dir);
  const env = { DATABASE_URL: database.url, DEMO_DATA: 'off', LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on', RATE_LIMIT_REQUESTS: '10000000', COMPLEXITY_BUDGET: '10000000', INGEST_RATE_LIMIT_REPORTS: '100000000' };
  const runtime = await openRuntime(loadConfig(env), { poolSize: 4 });
  const receiver = await startReceiver();
  try {
    await migrateToLatest(runtime.store);
    const document = generateDataset({ companies: 1, networksPerCompany: 50, devicesPerNetwork: 20, clientsPerNetwork: 0, seed: 13, slugPrefix: 'site' });
    await runtime.services.imports.import(document);
    const company = document.companies[0];
    const serial = company.networks[0].virtualDevices.find((d) => d.hardwareDevice)?.hardwareDevice.serialNumber;
    const readKey = (await runtime.services.apiKeys.create({ companySlug: company.slug, label: 'reads' })).key;
    const ingestKey = (await runtime.services.apiKeys.create({ companySlug: company.slug, label: 'ingest', scope: 'ingest' })).key;
    const caller = await runtime.services.webhooks.cliCaller(company.slug);
    const { secret } = await runtime.services.webhooks.createEndpoint(caller, { label: 'bench', url: receiver.url, rules: [{ alert: 'DEVICE_OFFLINE' }] });
    const server = await startServer(env);
    try {
      let stop = probe(server.url, readKey, ingestKey, serial);
      await new Promise((r) => setTimeout(r, 5_000));
      const idle = await stop();

      // the burst: EVENTS DEVICE_OFFLINE events in one transaction, as an offline check of a site that lost power writes them
      const devices = await runtime.store.db.selectFrom('hardware_devices').select(['id', 'virtual_device_id']).where('virtual_device_id', 'is not', null).execute();
      const network = await runtime.store.db.selectFrom('virtual_devices').select(['id', 'network_id']).execute();
      const networkOf = new Map(network.map((v) => [v.id, v.network_id]));
      const at = new Date().toISOString();
      const rows = Array.from({ length: EVENTS }, (_, i) => {
        const device = devices[i % devices.length];
        return { uuid: randomUUID(), company_id: Number((caller.companyId)), network_id: networkOf.get(device.virtual_device_id), hardware_device_id: device.id, virtual_device_id: device.virtual_device_id, type: 'DEVICE_OFFLINE', observed_at: at, details: null, source: 'netgraph' };
      });
      stop = probe(server.url, readKey, ingestKey, serial);
      const started = performance.now();
      await runtime.store.lockingTransaction(async (tx) => {
        for (let i = 0; i < rows.length; i += 1_000) await tx.db.insertInto('events').values(rows.slice(i, i + 1_000)).execute();
      });
      const last = await receiver.until(EVENTS);
      const burst = await stop();
      const netgraph = EVENTS / ((last - started) / 1000);

      const payloads = (await runtime.services.webhooks.listDeliveries(caller, { limit: 1_000 })).map((d) => JSON.stringify(d.payload));
      const all = Array.from({ length: EVENTS }, (_, i) => payloads[i % payloads.length]);
      const floorRate = await floor(receiver, all, secret);
      return { kind, netgraph, floor: floorRate, idle, burst, seconds: (last - started) / 1000 };
    } finally {
      await server.stop();
    }
  } finally {
    await receiver.close();
    await runtime.close();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (const kind of STORES) results.push(await runStore(kind));
const f = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
console.log(`\nWebhook delivery: a burst of ${EVENTS} DEVICE_OFFLINE events to one local receiver (one netgraph process; floor: ${CONCURRENCY} keep-alive connections)\n`);
console.log('| store | netgraph deliveries/s | floor deliveries/s | ratio | burst delivered in | reads p50 / p99 idle (ms) | reads p50 / p99 during burst | ingest p50 / p99 idle | ingest p50 / p99 during burst |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.kind} | ${f(r.netgraph)} | ${f(r.floor)} | ${(r.netgraph / r.floor).toFixed(2)}x | ${r.seconds.toFixed(1)} s | ${f(r.idle.reads.p50)} / ${f(r.idle.reads.p99)} | ${f(r.burst.reads.p50)} / ${f(r.burst.reads.p99)} | ${f(r.idle.ingest.p50)} / ${f(r.idle.ingest.p99)} | ${f(r.burst.ingest.p50)} / ${f(r.burst.ingest.p99)} |`);
}
