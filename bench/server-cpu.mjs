#!/usr/bin/env node
// Server CPU per request of one `netgraph serve` process (no workers) on
// SQLite, for variants of netgraph taken in turns: what a change costs on a
// point lookup (`hardwareDevice` by serial number), measured as the server's
// CPU time (all threads, /proc) over a fixed load, not as throughput. Each
// variant is `name=DIR:LEVEL`: a checkout (or copy) holding `bin/` and a built
// `dist/`, and the LOG_LEVEL to run it at; the first is the baseline. The
// order is reversed every other round, and each round prints every variant's
// difference to the baseline in that round, whose median is the figure to
// read (this is how docs/benchmarks.md compared LOG_LEVEL=info with warn).
// Usage: npm run build && node bench/server-cpu.mjs [--rounds N] [--duration S] [--connections C] [--json] [name=DIR:LEVEL ...]
//   (default variants: warn=.:warn info=.:info)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { freePort, REPO_DIR } from './lib/targets.mjs';
import { cpuDelta, cpuSeconds, processTree } from './lib/procfs.mjs';
import { median } from './lib/report.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const Database = createRequire(path.join(REPO_DIR, 'package.json'))('better-sqlite3');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '6' }, duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '16' }, json: { type: 'boolean', default: false } },
});
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const say = values.json ? () => {} : (text) => console.error(text);
const variants = (positionals.length > 0 ? positionals : ['warn=.:warn', 'info=.:info']).map((spec) => {
  const match = /^([\w-]+)=(.+):(trace|debug|info|warn|error|fatal|silent)$/.exec(spec);
  if (!match) throw new Error(`a variant is name=DIR:LEVEL, not "${spec}"`);
  const dir = path.resolve(match[2]);
  if (!fs.existsSync(path.join(dir, 'dist', 'main.js'))) throw new Error(`${dir} has no dist/main.js: run npm run build there`);
  return { name: match[1], dir, level: match[3], cpu: [], differences: [] };
});

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-server-cpu-'));
const databaseUrl = `sqlite:${path.join(work, 'netgraph.db')}`;
const env = (level, port) => ({
  ...process.env,
  DATABASE_URL: databaseUrl,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: level,
  NODE_ENV: 'production',
  DEMO_SIMULATOR: 'off',
  RATE_LIMIT_REQUESTS: '10000000',
  COMPLEXITY_BUDGET: '10000000',
});

/** Starts `dir`'s server; resolves when it answers /healthz, with its process and everything it printed so far. */
async function start(dir, level, extraEnv = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(dir, 'bin', 'netgraph.js'), 'serve'], { env: { ...env(level, port), DEMO_DATA: 'off', ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  // the variant's log goes through a pipe that is drained, as under systemd
  child.stdout.on('data', (chunk) => {
    if (output.length < 64 * 1024) output += chunk;
  });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${dir} exited: ${output}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return { child, port, output: () => output };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${dir} did not answer /healthz: ${output}`);
}

async function stop(child) {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}

// the demo company and its key, once: the first variant's build creates them
say(`server-cpu: creating the demo data in ${work}`);
const first = await start(variants[0].dir, 'info', { DEMO_DATA: 'on' });
let key;
for (let i = 0; i < 100 && !key; i++) {
  key = /API key \(shown only this once, store it now\): (ngk_\w+)/.exec(first.output())?.[1];
  if (!key) await new Promise((resolve) => setTimeout(resolve, 100));
}
await stop(first.child);
if (!key) throw new Error(`the demo printed no API key: ${first.output()}`);
const db = new Database(path.join(work, 'netgraph.db'), { readonly: true });
const serial = db.prepare('SELECT serial_number AS serial FROM hardware_devices ORDER BY serial_number LIMIT 1').get().serial;
db.close();
const body = JSON.stringify({
  query: 'query HardwareDevice($arg: String!) { hardwareDevice(serialNumber: $arg) { serialNumber deviceType deviceModel isConnectedToBackend } }',
  variables: { arg: serial },
});

/** One measured run of `variant`: server CPU µs per request over `duration` seconds after a 2 s warm-up. */
async function measure(variant) {
  const server = await start(variant.dir, variant.level);
  try {
    const load = { url: `http://127.0.0.1:${server.port}/api/v1/graphql`, method: 'POST', connections, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body };
    await autocannon({ ...load, duration: 2 });
    const pids = processTree(server.child.pid);
    const before = cpuSeconds(pids);
    const result = await autocannon({ ...load, duration });
    const seconds = cpuDelta(before, cpuSeconds(pids));
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${variant.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return { cpuMicroseconds: (seconds * 1e6) / result.requests.total, requestsPerSecond: result.requests.total / duration };
  } finally {
    await stop(server.child);
  }
}

try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    const figures = new Map();
    for (const variant of order) figures.set(variant, await measure(variant));
    const baseline = figures.get(variants[0]).cpuMicroseconds;
    for (const variant of variants) {
      variant.cpu.push(figures.get(variant).cpuMicroseconds);
      variant.differences.push(figures.get(variant).cpuMicroseconds - baseline);
    }
    say(`round ${round + 1}/${rounds}: ${variants.map((v) => `${v.name} ${figures.get(v).cpuMicroseconds.toFixed(1)} µs (${Math.round(figures.get(v).requestsPerSecond)} req/s)`).join(', ')}`);
  }
  const summary = variants.map((v) => ({ name: v.name, level: v.level, dir: v.dir, medianCpuMicroseconds: median(v.cpu), medianDifferenceMicroseconds: median(v.differences), cpuMicroseconds: v.cpu, differencesMicroseconds: v.differences }));
  if (values.json) console.log(JSON.stringify({ rounds, duration, connections, variants: summary }));
  else for (const v of summary) console.log(`${v.name}: median ${v.medianCpuMicroseconds.toFixed(1)} µs of server CPU per request; to ${variants[0].name}, per round: median ${v.medianDifferenceMicroseconds >= 0 ? '+' : ''}${v.medianDifferenceMicroseconds.toFixed(1)} µs (${v.differencesMicroseconds.map((d) => d.toFixed(1)).join(', ')})`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
