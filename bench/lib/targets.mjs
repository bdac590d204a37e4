// The servers under test: netgraph on each store, PostGraphile 4 and the raw-SQL
// floor. Each runs as its own process group with the same number of workers.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTree } from './procfs.mjs';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO_DIR = path.dirname(BENCH_DIR);
const NETGRAPH_BIN = path.join(REPO_DIR, 'bin', 'netgraph.js');

/**
 * The targets a run can compare, in report order. `floor` is the baseline.
 * netgraph runs at LOG_LEVEL=warn; its `-info` targets run at the default
 * `info` (one request log line per request), on the point lookups only, so
 * one run shows what the default log level costs. The `-control` targets are
 * `netgraph-postgres` and `netgraph-sqlite` once more, same settings, on the
 * point lookups: what two identical servers differ by in one run is the noise
 * any ratio between targets (info against warn above all) has to be read
 * against. The SQLite one runs by default; the PostgreSQL one only when named
 * in --targets: a third netgraph on PostgreSQL holds up to 40 more
 * connections, past the default max_connections (100) with the others.
 * The `-reqlog-off` targets run with API_REQUEST_LOG=off (`env`), on the
 * point lookups: against their `requestLogOf` target (the log on, the
 * default) they show what the per-key request log costs (the goal: at most
 * 3%). The SQLite one runs by default, the PostgreSQL one when named (its
 * connections, as above).
 */
export const TARGETS = {
  'netgraph-postgres': { label: 'netgraph, PostgreSQL', kind: 'netgraph', store: 'postgres' },
  'netgraph-postgres-info': { label: 'netgraph, PostgreSQL, LOG_LEVEL=info', kind: 'netgraph', store: 'postgres', logLevel: 'info', pointLookupsOnly: true },
  'netgraph-postgres-control': { label: 'netgraph, PostgreSQL, control', kind: 'netgraph', store: 'postgres', pointLookupsOnly: true, controlOf: 'netgraph-postgres', optIn: true },
  'netgraph-sqlite': { label: 'netgraph, SQLite', kind: 'netgraph', store: 'sqlite' },
  'netgraph-sqlite-info': { label: 'netgraph, SQLite, LOG_LEVEL=info', kind: 'netgraph', store: 'sqlite', logLevel: 'info', pointLookupsOnly: true },
  'netgraph-sqlite-control': { label: 'netgraph, SQLite, control', kind: 'netgraph', store: 'sqlite', pointLookupsOnly: true, controlOf: 'netgraph-sqlite' },
  'netgraph-postgres-reqlog-off': { label: 'netgraph, PostgreSQL, API_REQUEST_LOG=off', kind: 'netgraph', store: 'postgres', env: { API_REQUEST_LOG: 'off' }, pointLookupsOnly: true, requestLogOf: 'netgraph-postgres', optIn: true },
  'netgraph-sqlite-reqlog-off': { label: 'netgraph, SQLite, API_REQUEST_LOG=off', kind: 'netgraph', store: 'sqlite', env: { API_REQUEST_LOG: 'off' }, pointLookupsOnly: true, requestLogOf: 'netgraph-sqlite' },
  postgraphile: { label: 'PostGraphile 4', kind: 'postgraphile', store: 'postgres' },
  floor: { label: 'raw-SQL floor', kind: 'floor', store: 'postgres' },
};

/** The ingest case's targets: netgraph on each store (at LOG_LEVEL=info, as users run it) and the ingest floor on each. */
export const INGEST_TARGETS = {
  'netgraph-postgres': { label: 'netgraph, PostgreSQL', kind: 'netgraph', store: 'postgres' },
  'netgraph-sqlite': { label: 'netgraph, SQLite', kind: 'netgraph', store: 'sqlite' },
  'ingest-floor-postgres': { label: 'ingest floor, PostgreSQL', kind: 'ingest-floor', store: 'postgres' },
  'ingest-floor-sqlite': { label: 'ingest floor, SQLite', kind: 'ingest-floor', store: 'sqlite' },
};

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs the netgraph CLI with `env`; resolves with stdout, rejects with stderr on a non-zero exit. */
export function runNetgraph(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NETGRAPH_BIN, ...args], {
      cwd: REPO_DIR,
      env: { ...process.env, LOG_LEVEL: 'warn', DEMO_DATA: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`netgraph ${args[0]} exited ${code}: ${err.trim()}`))));
  });
}

function serverCommand(kind, workers) {
  if (kind === 'netgraph') return [...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), NETGRAPH_BIN, 'serve', '--workers', String(workers)];
  return [path.join(BENCH_DIR, 'servers', `${kind}.mjs`)];
}

/**
 * Starts one target on a free port and waits until `probe(target)` answers.
 * Its output goes to `<logDir>/<name>.log`. `stop()` ends its process group;
 * `restart()` stops it and starts it again, as new processes on a new port
 * (the same object, its `url` and `pids` changed).
 * `spec` (default TARGETS[name]) says what it is; `env` adds to its environment.
 */
export async function startTarget(options) {
  const target = await launchTarget(options);
  target.restart = async () => {
    await target.stop();
    const fresh = await launchTarget(options);
    Object.assign(target, { url: fresh.url, pids: fresh.pids, stop: fresh.stop });
  };
  return target;
}

async function launchTarget({ name, spec = TARGETS[name], databaseUrl, workers, logDir, keys, probe, env = {} }) {
  const port = await freePort();
  const logFile = path.join(logDir, `${name}.log`);
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, serverCommand(spec.kind, workers), {
    cwd: REPO_DIR,
    detached: true,
    stdio: ['ignore', log, log],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKERS: String(workers),
      LOG_LEVEL: spec.logLevel ?? 'warn',
      DEMO_DATA: 'off',
      NODE_ENV: 'production',
      // the per-key limits still run on every request (that cost is measured), with budgets the load cannot exhaust
      RATE_LIMIT_REQUESTS: '10000000',
      COMPLEXITY_BUDGET: '10000000',
      INGEST_RATE_LIMIT_REPORTS: '100000000',
      ...spec.env,
      ...env,
    },
  });
  fs.closeSync(log);
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => {
    exited = true;
    resolve(signal ?? code);
  }));
  const target = {
    name,
    ...spec,
    url: `http://127.0.0.1:${port}`,
    keys,
    pids: () => processTree(child.pid),
    async stop() {
      // the primary stops its own workers; signalling the whole group at once would race with that
      if (!exited) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
      // nothing of the group may outlive the run: a worker the primary left behind, say
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${name} exited while starting; see ${logFile}:\n${tail(logFile)}`);
    if (await probe(target).catch(() => false)) break;
    if (Date.now() > deadline) {
      await target.stop();
      throw new Error(`${name} did not answer within 60 s; see ${logFile}:\n${tail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // all workers up: the port answering proves one
  while (target.pids().length < (workers > 1 ? workers + 1 : 1) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return target;
}

function tail(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Whether a target answers a case: the LOG_LEVEL=info targets take the point lookups only. */
export function runsCase(target, kase) {
  return !target.pointLookupsOnly || kase.pointLookup === true;
}

/**
 * The HTTP request a target gets for one case and argument: path, headers,
 * body. netgraph gets the company's API key, as an integration would.
 */
export function requestFor(target, kase, arg) {
  const json = { 'content-type': 'application/json' };
  if (target.kind === 'netgraph') {
    const key = target.keys.get(arg.company);
    if (!key) throw new Error(`no API key for ${arg.company}`);
    return {
      path: '/api/v1/graphql',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: kase.netgraph, variables: { arg: arg.value } }),
    };
  }
  if (target.kind === 'postgraphile') {
    return { path: '/graphql', headers: json, body: JSON.stringify({ query: kase.postgraphile, variables: { arg: arg.value } }) };
  }
  return { path: `/${kase.root}`, headers: json, body: JSON.stringify({ arg: arg.value }) };
}
