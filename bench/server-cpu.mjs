#!/usr/bin/env node
// Server CPU per request of one `netgraph serve` (one process, or with
// --workers N a primary and N workers) on SQLite, for variants of netgraph:
// what a change costs on a point lookup (`hardwareDevice` by serial number),
// measured as the server's CPU time (all threads, /proc) over a load, and
// its requests per second against the first variant's in the same round.
// Each variant is `name=DIR:LEVEL[:OUTPUT]`: a checkout (or copy) holding
// `bin/` and a built `dist/`, the LOG_LEVEL to run it at, and where its log
// goes: `pipe` (the default: a pipe this script drains, as systemd or a
// container runtime would), `file` (a file in the work directory) or `null`
// (/dev/null). The first variant is the baseline.
//
// Each round starts every variant's server at once, each on its own copy of
// one demo database, warms each up (--warmup seconds of load), then loads
// them in turns of --duration seconds (the order reversed every other round)
// and stops them: a round's variants are measured seconds apart (this
// machine's speed drifts by a fifth over minutes), and each round has new
// processes, since one process of a build can settle 5% above or below
// another of the same build for its whole life (what V8's optimizing
// compiler made of it; docs/benchmarks.md). --keep-processes starts them
// once for all rounds. Each round prints every variant's difference to the
// baseline in that round; their median is the figure to read (how
// docs/benchmarks.md compared LOG_LEVEL=info with warn).
// Usage: npm run build && node bench/server-cpu.mjs [--rounds N] [--duration S] [--warmup S] [--keep-processes] [--connections C] [--workers N] [--json] [name=DIR:LEVEL[:OUTPUT] ...]
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
  options: { rounds: { type: 'string', default: '20' }, workers: { type: 'string', default: '1' }, duration: { type: 'string', default: '3' }, warmup: { type: 'string', default: '5' }, 'keep-processes': { type: 'boolean', default: false }, connections: { type: 'string', default: '16' }, json: { type: 'boolean', default: false } },
});
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const connections = Number(values.connections);
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a whole number from 1, not "${values.workers}"`);
const say = values.json ? () => {} : (text) => console.error(text);
const variants = (positionals.length > 0 ? positionals : ['warn=.:warn', 'info=.:info']).map((spec) => {
  const match = /^([\w-]+)=(.+):(trace|debug|info|warn|error|fatal|silent)(?::(pipe|file|null))?$/.exec(spec);
  if (!match) throw new Error(`a variant is name=DIR:LEVEL or name=DIR:LEVEL:OUTPUT (pipe, file or null), not "${spec}"`);
  const dir = path.resolve(match[2]);
  if (!fs.existsSync(path.join(dir, 'dist', 'main.js'))) throw new Error(`${dir} has no dist/main.js: run npm run build there`);
  return { name: match[1], dir, level: match[3], output: match[4] ?? 'pipe', cpu: [], differences: [], throughputRatios: [] };
});

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-server-cpu-'));
const demoDatabase = path.join(work, 'netgraph.db');
const env = (level, port, database) => ({
  ...process.env,
  DATABASE_URL: `sqlite:${database}`,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: level,
  NODE_ENV: 'production',
  DEMO_SIMULATOR: 'off',
  RATE_LIMIT_REQUESTS: '10000000',
  COMPLEXITY_BUDGET: '10000000',
});

/**
 * Starts `dir`'s server with its log going to `logTo` (pipe, file or null);
 * resolves when it answers /healthz, with its process and, through a pipe,
 * what it printed so far.
 */
async function start(dir, level, { database = demoDatabase, extraEnv = {}, logTo = 'pipe' } = {}) {
  const port = await freePort();
  const logFd = logTo === 'pipe' ? undefined : fs.openSync(logTo === 'null' ? '/dev/null' : `${database}.log`, 'a');
  const child = spawn(process.execPath, [path.join(dir, 'bin', 'netgraph.js'), 'serve', '--workers', String(workers)], { env: { ...env(level, port, database), DEMO_DATA: 'off', ...extraEnv }, stdio: ['ignore', logFd ?? 'pipe', 'inherit'] });
  if (logFd !== undefined) fs.closeSync(logFd);
  let printed = '';
  // through a pipe, the variant's log is drained as systemd or a container runtime would
  child.stdout?.on('data', (chunk) => {
    if (printed.length < 64 * 1024) printed += chunk;
  });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${dir} exited: ${printed}`);
    try {
      // with --workers, the port answering proves one worker: all of them up before the server counts as started
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok && processTree(child.pid).length >= (workers > 1 ? workers + 1 : 1)) return { child, port, printed: () => printed };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // a primary whose workers keep failing never answers: it must not outlive the run
  await stop(child);
  throw new Error(`${dir} did not answer /healthz: ${printed}`);
}

async function stop(child) {
  // a process ended by a signal has no exit code, only a signal code: waiting for its 'exit' then would never end
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

// the demo company and its key, once: the first variant's build creates them
say(`server-cpu: creating the demo data in ${work}`);
const first = await start(variants[0].dir, 'info', { extraEnv: { DEMO_DATA: 'on' } });
let key;
for (let i = 0; i < 100 && !key; i++) {
  key = /API key \(shown only this once, store it now\): (ngk_\w+)/.exec(first.printed())?.[1];
  if (!key) await new Promise((resolve) => setTimeout(resolve, 100));
}
await stop(first.child);
if (!key) throw new Error(`the demo printed no API key: ${first.printed()}`);
const db = new Database(demoDatabase, { readonly: true });
const serial = db.prepare('SELECT serial_number AS serial FROM hardware_devices ORDER BY serial_number LIMIT 1').get().serial;
db.close();
const body = JSON.stringify({
  query: 'query HardwareDevice($arg: String!) { hardwareDevice(serialNumber: $arg) { serialNumber deviceType deviceModel isConnectedToBackend } }',
  variables: { arg: serial },
});

/** Starts every variant's server on a new copy of the demo database, then warms each up (`warmup` seconds of load). */
async function startAll() {
  // every start settled before a failure is thrown: one still starting would outlive stopAll()
  const started = await Promise.allSettled(
    variants.map(async (variant) => {
      const database = path.join(work, `${variant.name}.db`);
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${database}${suffix}`, { force: true });
      fs.copyFileSync(demoDatabase, database);
      variant.server = await start(variant.dir, variant.level, { database, logTo: variant.output });
      variant.pids = processTree(variant.server.child.pid);
      variant.load = { url: `http://127.0.0.1:${variant.server.port}/api/v1/graphql`, method: 'POST', connections, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body };
    }),
  );
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  for (const variant of variants) await autocannon({ ...variant.load, duration: warmup });
}

async function stopAll() {
  await Promise.all(variants.filter((v) => v.server !== undefined).map((v) => stop(v.server.child)));
  for (const variant of variants) variant.server = undefined;
}

/** One turn of load on `variant`'s server: its CPU µs per request over `duration` seconds. */
async function measure(variant) {
  const before = cpuSeconds(variant.pids);
  const result = await autocannon({ ...variant.load, duration });
  const seconds = cpuDelta(before, cpuSeconds(variant.pids));
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${variant.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { cpuMicroseconds: (seconds * 1e6) / result.requests.total, requestsPerSecond: result.requests.total / duration };
}

try {
  say(`server-cpu: ${variants.map((v) => v.name).join(', ')}; ${rounds} rounds, ${values['keep-processes'] ? 'the same processes in all' : 'new processes in each'}`);
  for (let round = 0; round < rounds; round++) {
    if (round === 0 || !values['keep-processes']) {
      await stopAll();
      await startAll();
    }
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    const figures = new Map();
    for (const variant of order) figures.set(variant, await measure(variant));
    const baseline = figures.get(variants[0]);
    for (const variant of variants) {
      variant.cpu.push(figures.get(variant).cpuMicroseconds);
      variant.differences.push(figures.get(variant).cpuMicroseconds - baseline.cpuMicroseconds);
      variant.throughputRatios.push(figures.get(variant).requestsPerSecond / baseline.requestsPerSecond);
    }
    say(`round ${round + 1}/${rounds}: ${variants.map((v) => `${v.name} ${figures.get(v).cpuMicroseconds.toFixed(1)} µs (${Math.round(figures.get(v).requestsPerSecond)} req/s)`).join(', ')}`);
  }
  const summary = variants.map((v) => ({ name: v.name, level: v.level, output: v.output, dir: v.dir, medianCpuMicroseconds: median(v.cpu), medianDifferenceMicroseconds: median(v.differences), cpuMicroseconds: v.cpu, differencesMicroseconds: v.differences, medianThroughputRatio: median(v.throughputRatios), throughputRatios: v.throughputRatios }));
  if (values.json) console.log(JSON.stringify({ rounds, duration, warmup, keepProcesses: values['keep-processes'], connections, workers, variants: summary }));
  else for (const v of summary) console.log(`${v.name}: median ${v.medianCpuMicroseconds.toFixed(1)} µs of server CPU per request; to ${variants[0].name}, per round: median ${v.medianDifferenceMicroseconds >= 0 ? '+' : ''}${v.medianDifferenceMicroseconds.toFixed(1)} µs (${v.differencesMicroseconds.map((d) => d.toFixed(1)).join(', ')}); requests per second, per round: median ${v.medianThroughputRatio.toFixed(3)}x (${v.throughputRatios.map((r) => r.toFixed(2)).join(', ')})`);
} finally {
  await stopAll();
  fs.rmSync(work, { recursive: true, force: true });
}
