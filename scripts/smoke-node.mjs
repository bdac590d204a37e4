#!/usr/bin/env node
// Smoke test of netgraph on another Node.js major: `node scripts/smoke-node.mjs 24` (or 22).
//
// Brings that Node.js from the npm registry (the node-<platform>-<arch> package: its binary and the headers that
// node-gyp needs, since better-sqlite3 is built for that Node's ABI), runs `npm ci` with it in a temporary copy of
// this repository (failing on any EBADENGINE warning), starts `netgraph serve` on a fresh SQLite file and a free port,
// creates a read key and an ingest key, runs a GraphQL query, posts a device report and reads it back, then stops the
// server with SIGTERM. Prints each step; exits 1 on the first failure. `--keep` leaves the temporary folder.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const major = process.argv[2];
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/smoke-node.mjs MAJOR [--keep]   e.g. node scripts/smoke-node.mjs 24');
  process.exit(2);
}
const keep = process.argv.includes('--keep');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), `netgraph-node${major}-`));
const started = performance.now();

function step(text) {
  console.log(`== smoke node ${major} (${((performance.now() - started) / 1000).toFixed(0)} s): ${text}`);
}

function fail(message) {
  throw new Error(message);
}

/** Runs a command to its end; its output is returned, and printed when it fails. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) fail(`${command} ${args.join(' ')} exited ${result.status ?? result.signal}:\n${output}${result.error ?? ''}`);
  return { stdout: result.stdout, output };
}

/** The Node.js binary and its folder (with include/node for node-gyp), from the npm registry. */
function installNode() {
  const name = `node-${process.platform}-${process.arch}`;
  run('npm', ['install', '--prefix', path.join(work, 'node'), '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `${name}@${major}`]);
  const home = path.join(work, 'node', 'node_modules', name);
  const version = run(path.join(home, 'bin', 'node'), ['--version']).stdout.trim();
  if (!version.startsWith(`v${major}.`)) fail(`expected Node.js ${major}, got ${version}`);
  return { home, version };
}

/** The repository's tracked files (as they are in the work tree) in a folder of their own. */
function copyRepository(target) {
  const files = run('git', ['ls-files', '-z'], { cwd: ROOT }).stdout.split('\0').filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(target, file));
  }
  return files.length;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(base, server) {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) fail(`netgraph serve exited ${server.exitCode} before it was ready`);
    const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  fail('netgraph serve was not ready within 60 s');
}

async function post(base, route, key, body) {
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) fail(`POST ${route} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

/** Creates the keys, queries, posts a report and reads it back, against a running server. */
async function exercise(base, netgraph) {
  const readKey = JSON.parse(netgraph(['keys', 'create', '--company', 'acme', '--label', 'smoke', '--json']).stdout).key;
  const ingestKey = JSON.parse(netgraph(['keys', 'create', '--company', 'acme', '--label', 'smoke-ingest', '--scope', 'ingest', '--json']).stdout).key;
  step('keys created with netgraph keys create (read and ingest)');

  const company = await post(base, '/api/v1/graphql', readKey, { query: '{ companyBySlug(slug: "acme") { name networks { slug } } }' });
  if (company.data?.companyBySlug?.name !== 'Acme Networks' || company.data.companyBySlug.networks.length === 0) fail(`unexpected GraphQL answer: ${JSON.stringify(company)}`);
  step(`GraphQL query answered: ${company.data.companyBySlug.name}, ${company.data.companyBySlug.networks.length} networks`);

  const exported = JSON.parse(netgraph(['export', '--company', 'acme']).stdout);
  const serial = exported.companies[0].networks.flatMap((n) => n.virtualDevices ?? []).find((d) => d.hardwareDevice)?.hardwareDevice.serialNumber ?? fail('no hardware device in the demo company');
  const mac = '0c:8d:db:5e:0a:24';
  const report = { reportId: randomUUID(), serialNumber: serial, observedAt: new Date().toISOString(), uptimeSeconds: 60, macAddress: mac };
  const ingested = await post(base, '/api/v1/reports', ingestKey, { reports: [report] });
  if (ingested.accepted !== 1 || ingested.rejected.length !== 0) fail(`unexpected ingest answer: ${JSON.stringify(ingested)}`);
  step(`device report for ${serial} accepted: ${JSON.stringify(ingested)}`);

  const device = await post(base, '/api/v1/graphql', readKey, { query: `{ hardwareDevice(serialNumber: "${serial}") { macAddress isConnectedToBackend } }` });
  const read = device.data?.hardwareDevice;
  if (read?.macAddress !== mac || read.isConnectedToBackend !== true) fail(`the report is not in the device's state: ${JSON.stringify(device)}`);
  step(`the report reads back: ${JSON.stringify(read)}`);
}

async function serveAndExercise(app, env, nodeBin) {
  const netgraph = (args) => run(nodeBin, [path.join(app, 'bin', 'netgraph.js'), ...args], { cwd: app, env });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(nodeBin, [path.join(app, 'bin', 'netgraph.js'), 'serve', '--port', String(port)], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (chunk) => (output += chunk));
  server.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve(code ?? signal)));
  try {
    await waitUntilReady(base, server);
    step(`netgraph serve is ready on ${base} (fresh SQLite file, demo company loaded)`);
    // Node.js 24 runs the embedded store on node:sqlite, earlier majors on better-sqlite3 (src/db/sqlite-driver.ts)
    const driver = Number(major) >= 24 ? 'node:sqlite' : 'better-sqlite3';
    for (let i = 0; i < 50 && !output.includes('netgraph listening on'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!output.includes(`sqlite store, ${driver} driver`)) fail(`the listening line does not name the ${driver} driver`);
    step(`the embedded store runs on ${driver}`);
    await exercise(base, netgraph);
  } catch (error) {
    server.kill('SIGKILL');
    throw new Error(`${error.message}\n-- server output:\n${output}`);
  }
  server.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) fail(`netgraph serve exited ${code} on SIGTERM:\n${output}`);
  step('netgraph serve stopped on SIGTERM with exit code 0');
}

async function main() {
  step(`installing Node.js ${major} from the npm registry into ${work}`);
  const node = installNode();
  step(`Node.js ${node.version}`);

  const app = path.join(work, 'app');
  step(`copied ${copyRepository(app)} files of the repository; npm ci with Node.js ${node.version} (builds better-sqlite3)`);
  const env = { ...process.env, PATH: `${path.join(node.home, 'bin')}${path.delimiter}${process.env.PATH}`, npm_config_nodedir: node.home };
  const install = run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: app, env });
  if (/EBADENGINE/.test(install.output)) fail(`npm ci warned about an engine:\n${install.output}`);
  step('npm ci done, no EBADENGINE warning');

  const serveEnv = { ...env, DATABASE_URL: `sqlite:${path.join(work, 'smoke.db')}`, LOG_LEVEL: 'info', DEMO_DATA: 'on', DEMO_SIMULATOR: 'off' };
  await serveAndExercise(app, serveEnv, path.join(node.home, 'bin', 'node'));
}

try {
  await main();
  step(`passed on Node.js ${major}`);
} catch (error) {
  console.error(`== smoke node ${major}: FAILED: ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
