// The fleet simulator benchmark (issue 31): one `netgraph simulate` process driving a fleet (default 30,000 devices
// every 30 s, 1,000 reports/s) against a sink that answers like POST /api/v1/reports and stores nothing, so only the
// simulator is measured: its CPU per report and share of one core, reports/s sent against the schedule, how late
// reports arrive after their observedAt, its event loop's longest block and its RSS. Against a floor that POSTs one
// pre-built body of the same reports at the same rate (bench/lib/simulate-floor.mjs). See docs/benchmarks.md.
//   node bench/simulate.mjs [--devices N] [--interval S] [--ticks K] [--json] [--docs | --no-docs] [--reuse]
// Needs dist/ (npm run build). Progress on a terminal; --json prints one JSON line and nothing else.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '../dist/config.js';
import { migrateToLatest } from '../dist/db/migrate.js';
import { generateDataset } from '../dist/tools/demo/dataset.js';
import { createFleet, fleetNetworksOf } from '../dist/tools/simulator/simulator.fleet.js';
import { openRuntime } from '../dist/runtime.js';
import { cpuSeconds, machineFacts } from './lib/procfs.mjs';
import { startReportSink } from './lib/report-sink.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DOCS_START = '<!-- bench:simulate:start -->';
const DOCS_END = '<!-- bench:simulate:end -->';
const DEFAULTS = { devices: 30_000, interval: 30, ticks: 4 };
const BATCH = 100; // reports per request, as `netgraph simulate` posts them

const { values } = parseArgs({
  options: {
    devices: { type: 'string' },
    interval: { type: 'string' },
    ticks: { type: 'string' },
    json: { type: 'boolean' },
    docs: { type: 'boolean' },
    'no-docs': { type: 'boolean' },
    reuse: { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
if (values.help) {
  console.log('node bench/simulate.mjs [--devices N (30000)] [--interval S (30)] [--ticks K (4)] [--json] [--docs | --no-docs] [--reuse (keep the data file in the temp folder for the next run)]');
  process.exit(0);
}
const positive = (text, name, fallback) => {
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0, not "${text}"`);
  return n;
};
const DEVICES = positive(values.devices, 'devices', DEFAULTS.devices);
const INTERVAL = positive(values.interval, 'interval', DEFAULTS.interval);
const TICKS = positive(values.ticks, 'ticks', DEFAULTS.ticks);
const isDefault = DEVICES === DEFAULTS.devices && INTERVAL === DEFAULTS.interval && TICKS >= DEFAULTS.ticks;
const WRITE_DOCS = values['no-docs'] ? false : (values.docs ?? isDefault);
const quiet = values.json === true;
const progress = (line) => {
  if (!quiet) process.stderr.write(`${line}\n`);
};

/** The data: one company whose networks (20 devices each) hold at least DEVICES simulated devices. */
function fleetDocument() {
  const perNetwork = fleetNetworksOf(generateDataset({ companies: 1, networksPerCompany: 10, devicesPerNetwork: 20, clientsPerNetwork: 0, seed: 31, slugPrefix: 'sim' }).companies[0]);
  const average = perNetwork.reduce((n, x) => n + x.devices.length, 0) / perNetwork.length;
  const document = generateDataset({ companies: 1, networksPerCompany: Math.ceil((DEVICES / average) * 1.05) + 2, devicesPerNetwork: 20, clientsPerNetwork: 0, seed: 31, slugPrefix: 'sim' });
  const company = document.companies[0];
  const networks = [];
  let devices = 0;
  for (const [i, network] of fleetNetworksOf(company).entries()) {
    if (devices >= DEVICES) break;
    networks.push(company.networks[i]);
    devices += network.devices.length;
  }
  return { document: { companies: [{ ...company, networks }] }, devices };
}

async function prepareData(dir) {
  const { document, devices } = fleetDocument();
  // the simulator's fleet (seed 1), to know how many reports each tick holds
  const fleet = createFleet(fleetNetworksOf(document.companies[0]), { seed: 1, intervalSeconds: INTERVAL });
  const file = path.join(dir, `simulate-${DEVICES}.db`);
  if (values.reuse && fs.existsSync(file)) return { file, document, devices, fleet, importSeconds: null };
  fs.rmSync(file, { force: true });
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: `sqlite:${file}`, DEMO_DATA: 'off' }), { poolSize: 1 });
  try {
    await migrateToLatest(runtime.store);
    const started = performance.now();
    await runtime.services.imports.import(document);
    return { file, document, devices, fleet, importSeconds: (performance.now() - started) / 1000 };
  } finally {
    await runtime.close();
  }
}

const sleepUntil = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const median = (xs) => quantile(xs, 0.5);

/** Runs `netgraph simulate` against the sink; measures the K ticks after two of warm-up. */
async function measureSimulator(data, sink, dir) {
  const lagFile = path.join(dir, 'loop-lag.jsonl');
  fs.rmSync(lagFile, { force: true });
  const args = ['--import', path.join(ROOT, 'bench/lib/loop-lag.mjs'), 'bin/netgraph.js', 'simulate', '--company', 'sim-1', '--url', sink.url, '--key', 'ngk_bench', '--interval', String(INTERVAL), '--json'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: `sqlite:${data.file}`, DEMO_DATA: 'off', LOG_LEVEL: 'warn', BENCH_LOOP_LAG_FILE: lagFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const intervalMs = INTERVAL * 1000;
  try {
    const started = Date.now();
    while (sink.arrivals.length === 0) {
      if (child.exitCode !== null) throw new Error(`netgraph simulate exited (${child.exitCode}):\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const firstReportSeconds = (sink.arrivals[0].arrivedMs - started) / 1000;
    // warm-up: the tick sent at start (already due) and the next one
    const from = Math.ceil(sink.arrivals[0].arrivedMs / intervalMs) * intervalMs + intervalMs;
    const to = from + TICKS * intervalMs;
    progress(`simulate: first report ${firstReportSeconds.toFixed(1)} s after start; measuring ${TICKS} ticks from ${new Date(from).toISOString().slice(11, 19)} UTC`);
    await sleepUntil(from);
    const before = cpuSeconds([child.pid]).get(child.pid) ?? 0;
    for (let t = from + intervalMs; t <= to; t += intervalMs) {
      await sleepUntil(t);
      if (t < to) progress(`simulate: tick ${(t - from) / intervalMs}/${TICKS}, ${sink.arrivals.length.toLocaleString('en-US')} reports so far`);
    }
    const cpu = (cpuSeconds([child.pid]).get(child.pid) ?? 0) - before;
    // a tick that slipped gets two more intervals to arrive whole, so its lateness is counted
    const expected = Array.from({ length: TICKS }, (_, i) => data.fleet.reportCountAt((from + i * intervalMs) / 1000)).reduce((a, b) => a + b, 0);
    const arrived = () => sink.arrivals.filter((a) => a.observedAtMs >= from && a.observedAtMs < to).length;
    for (let i = 0; i < 20 * 2 * INTERVAL && arrived() < expected; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    const exit = await exited;
    if (exit.code !== 0) throw new Error(`netgraph simulate exited (${exit.signal ?? exit.code}):\n${stderr}`);
    const summary = JSON.parse(stdout.trim().split('\n').at(-1));
    return { ...analyse(data.fleet, sink.arrivals, from, to, cpu, lagFile), firstReportSeconds, summary };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** What the sink saw of the ticks in [from, to), with the process's CPU over that window and its loop-lag lines. */
function analyse(fleet, arrivals, from, to, cpuSecondsUsed, lagFile) {
  const intervalMs = INTERVAL * 1000;
  const inWindow = arrivals.filter((a) => a.arrivedMs >= from && a.arrivedMs < to);
  const ofTicks = arrivals.filter((a) => a.observedAtMs >= from && a.observedAtMs < to);
  const ticks = new Map();
  for (let t = from; t < to; t += intervalMs) ticks.set(t, { expected: fleet.reportCountAt(t / 1000), reports: 0, lastMs: 0 });
  for (const a of ofTicks) {
    const tick = ticks.get(a.observedAtMs);
    tick.reports += 1;
    tick.lastMs = Math.max(tick.lastMs, a.arrivedMs - a.observedAtMs);
  }
  // a tick not sent whole counts as sent when the wait ended: later than that
  const done = [...ticks.values()].map((t) => (t.reports === t.expected ? t.lastMs : Infinity));
  const lateness = ofTicks.map((a) => a.arrivedMs - a.observedAtMs);
  const lag = fs.readFileSync(lagFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.at > from && l.at <= to + 1000);
  return {
    reportsPerTick: median([...ticks.values()].map((t) => t.expected)),
    reportsPerSecond: inWindow.length / ((to - from) / 1000),
    cpuMsPerReport: (cpuSecondsUsed * 1000) / inWindow.length,
    coreShare: cpuSecondsUsed / ((to - from) / 1000),
    tickSeconds: done.map((ms) => ms / 1000),
    ticksSentWhole: done.filter(Number.isFinite).length,
    onSchedule: done.every((ms) => ms < intervalMs),
    latenessMs: { p50: quantile(lateness, 0.5), p99: quantile(lateness, 0.99), max: Math.max(...lateness) },
    loopLagMs: { max: Math.max(...lag.map((l) => l.maxMs)), p99: median(lag.map((l) => l.p99Ms)) },
    rssBytes: Math.max(...lag.map((l) => l.rssBytes)),
  };
}

/** The floor: one pre-built body of BATCH real reports, POSTed as many times a tick as the simulator sent reports. */
async function measureFloor(data, sink, dir, reportsPerTick) {
  const [reports] = data.fleet.reportChunksAt(Math.floor(Date.now() / 1000 / INTERVAL) * INTERVAL, BATCH);
  const bodyFile = path.join(dir, 'floor-body.json.gz');
  fs.writeFileSync(bodyFile, gzipSync(JSON.stringify({ reports: reports.slice(0, BATCH) })));
  const requests = Math.ceil(reportsPerTick / BATCH);
  progress(`floor: ${requests} requests of ${BATCH} reports a tick, ${TICKS} ticks after one of warm-up`);
  const child = spawn(process.execPath, ['bench/lib/simulate-floor.mjs', sink.url, bodyFile, String(requests), String(INTERVAL), String(TICKS)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (c) => (stdout += c));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the floor exited with ${code}`);
  const result = JSON.parse(stdout);
  const sent = result.requests * BATCH;
  return { cpuMsPerReport: result.cpuMs / sent, coreShare: result.cpuMs / 1000 / (TICKS * INTERVAL), tickSeconds: result.tickSeconds };
}

const n0 = (v) => Math.round(v).toLocaleString('en-US');
const s1 = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} s` : 'not whole');

function markdown(r) {
  const { simulator: sim, floor } = r;
  // at 1,000 reports/s a report may take 1 ms of one core: the share is the CPU ms per report
  const at1000 = (ms) => `${(ms * 100).toFixed(0)}%`;
  return [
    `Run of ${r.date} (\`node bench/simulate.mjs${r.argv}\`, ${r.machine.cpuModel}, 2 cores shared, load ${r.machine.loadAverage}): one \`netgraph simulate\` process, ${n0(r.devices)} devices of one company (SQLite, imported in ${r.importSeconds === null ? 'an earlier run' : s1(r.importSeconds)}) every ${INTERVAL} s, posting to a sink that answers like \`POST /api/v1/reports\` and stores nothing; ${TICKS} ticks measured after two of warm-up. CPU from \`/proc/<pid>/stat\`, event-loop delay and RSS from a preloaded \`monitorEventLoopDelay\` (bench/lib/loop-lag.mjs). The floor POSTs one pre-built gzip body of ${BATCH} of the same reports as many times a tick, 4 at a time, with node:http.`,
    '',
    '| | reports/s on schedule | reports/s sent | CPU ms per report | share of one core | fraction of one core at 1,000 reports/s | tick sent within (median / max) | report lateness p50 / p99 / max | event loop: longest block / median p99 | RSS (max) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| \`netgraph simulate\` | ${n0(sim.reportsPerTick / INTERVAL)} | ${n0(sim.reportsPerSecond)} | ${sim.cpuMsPerReport.toFixed(3)} | ${(sim.coreShare * 100).toFixed(0)}% | ${at1000(sim.cpuMsPerReport)} | ${s1(median(sim.tickSeconds))} / ${s1(Math.max(...sim.tickSeconds))} | ${s1(sim.latenessMs.p50 / 1000)} / ${s1(sim.latenessMs.p99 / 1000)} / ${s1(sim.latenessMs.max / 1000)} | ${n0(sim.loopLagMs.max)} ms / ${n0(sim.loopLagMs.p99)} ms | ${n0(sim.rssBytes / 2 ** 20)} MiB |`,
    `| floor (pre-built bodies) | ${n0(sim.reportsPerTick / INTERVAL)} | | ${floor.cpuMsPerReport.toFixed(3)} | ${(floor.coreShare * 100).toFixed(0)}% | ${at1000(floor.cpuMsPerReport)} | ${s1(median(floor.tickSeconds))} / ${s1(Math.max(...floor.tickSeconds))} | | | |`,
    '',
    `Simulator / floor CPU per report: **${(sim.cpuMsPerReport / floor.cpuMsPerReport).toFixed(1)}x**; every measured tick sent within its interval: **${sim.onSchedule ? 'yes' : `no (${sim.ticksSentWhole} of ${TICKS} sent whole within ${2 * INTERVAL} s after the window)`}**. The simulator's summary: ${JSON.stringify(sim.summary)}.`,
  ].join('\n');
}

function writeDocs(text) {
  const file = path.join(ROOT, 'docs/benchmarks.md');
  const docs = fs.readFileSync(file, 'utf8');
  const start = docs.indexOf(DOCS_START);
  const end = docs.indexOf(DOCS_END);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${DOCS_START} … ${DOCS_END} section`);
  fs.writeFileSync(file, `${docs.slice(0, start + DOCS_START.length)}\n${text}\n${docs.slice(end)}`);
}

const dir = values.reuse ? path.join(os.tmpdir(), 'netgraph-bench-simulate') : fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-bench-simulate-'));
fs.mkdirSync(dir, { recursive: true });
const sink = await startReportSink();
try {
  progress(`data: ${DEVICES.toLocaleString('en-US')} devices into SQLite…`);
  const data = await prepareData(dir);
  progress(`data: ${data.devices.toLocaleString('en-US')} devices${data.importSeconds === null ? ' (reused)' : `, imported in ${s1(data.importSeconds)}`}`);
  const simulator = await measureSimulator(data, sink, dir);
  sink.arrivals.length = 0;
  const floor = await measureFloor(data, sink, dir, simulator.reportsPerTick);
  const result = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    argv: process.argv.slice(2).length > 0 ? ` ${process.argv.slice(2).join(' ')}` : '',
    machine: machineFacts(),
    devices: data.devices,
    intervalSeconds: INTERVAL,
    ticks: TICKS,
    importSeconds: data.importSeconds,
    simulator,
    floor,
  };
  if (quiet) console.log(JSON.stringify(result));
  else console.log(`\n${markdown(result)}`);
  if (WRITE_DOCS) {
    writeDocs(markdown(result));
    progress('docs/benchmarks.md: the simulator section rewritten');
  }
} finally {
  await sink.close();
  if (!values.reuse) fs.rmSync(dir, { recursive: true, force: true });
}
