// npm run chaos [-- --duration 180 --concurrency 8 --json]
//
// Two netgraph processes behind HAProxy, on a PostgreSQL cluster and a Redis
// of this run's own (free ports, a temp folder: never the shared 5432/6379),
// under mixed reads, writes and device reports, while faults hit them one by
// one: a process killed and started again, a process drained, PostgreSQL
// restarted, Redis stopped and started, keys revoked (and still used). At the
// end it checks every acknowledged write and report against the database and
// prints the figures (docs/operations.md#chaos). --json prints only the final
// JSON; the progress lines otherwise go to stderr. --short runs the version
// the test suite runs (test/chaos.test.ts): fewer faults, a shorter duration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { countByStatus, longestFailureStretchMs, recoveries, revokedAccepted } from './cluster/figures.mjs';
import { renderHaproxyConfig, startHaproxy } from './cluster/haproxy.mjs';
import { startLoad } from './cluster/load.mjs';
import { countLost, revokeKeys, seed } from './cluster/netgraph-data.mjs';
import { createPostgresCluster } from './cluster/postgres.mjs';
import { createNetgraphProcess, createRedis, freePort, sleep } from './cluster/processes.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '180' },
    concurrency: { type: 'string', default: '8' },
    short: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // a fault for the read replica (READ_DATABASE_URL), once the replica harness is on main: see pauseReplica below
    'with-replica': { type: 'boolean', default: false },
  },
});
const durationMs = Number(values.duration) * 1000;
const concurrency = Number(values.concurrency);
if (!(durationMs >= 10_000) || !(concurrency >= 1)) {
  console.error('chaos: --duration must be at least 10 (seconds) and --concurrency at least 1');
  process.exit(2);
}
if (values['with-replica']) {
  console.error('chaos: --with-replica needs the read-replica harness (READ_DATABASE_URL, issue 14), which this build does not have yet');
  process.exit(2);
}
const progress = (line) => (values.json ? undefined : console.error(`chaos: ${line}`));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-chaos-'));
const cleanups = [];
let epoch = performance.now();
const now = () => performance.now() - epoch;

try {
  const report = await runChaos();
  console.log(JSON.stringify(report, null, values.json ? 0 : 2));
  process.exitCode = report.lost.writes === 0 && report.lost.reports === 0 && report.revokedKeysAccepted === 0 ? 0 : 1;
} catch (error) {
  console.error('chaos: the run could not complete:', error);
  process.exitCode = 2;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error('chaos: cleanup:', error.message));
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
  else console.error(`chaos: logs and data kept in ${dir}`);
}
// a driver's idle socket must not keep a finished run alive
process.exit(process.exitCode);

/** Sets up the topology, runs the load and the faults, and computes the figures. */
async function runChaos() {
  const [pgPort, redisPort, lbPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  progress(`PostgreSQL on ${pgPort}, Redis on ${redisPort}, HAProxy on ${lbPort}, netgraph on ${ports.join(' and ')} (files in ${dir})`);
  const postgres = await createPostgresCluster({ dir, port: pgPort });
  cleanups.push(() => postgres.stop());
  const redis = createRedis({ port: redisPort, logFile: path.join(dir, 'redis.log') });
  await redis.start();
  cleanups.push(() => redis.stop());
  const { keys, serials } = await seed(postgres.url, 3);

  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    TRUST_PROXY: 'on',
    // docs/operations.md's setting for its HAProxy configuration: above inter (1 s) x fall (2)
    DRAIN_DELAY_MS: '3000',
    LOG_LEVEL: 'warn',
    DEMO_DATA: 'off',
    RATE_LIMIT_REQUESTS: '10000000',
    COMPLEXITY_BUDGET: '10000000',
    INGEST_RATE_LIMIT_REPORTS: '10000000',
  };
  const netgraphs = ports.map((port, i) => createNetgraphProcess({ name: `netgraph-${i + 1}`, port, env, logFile: path.join(dir, `netgraph-${i + 1}.log`) }));
  for (const netgraph of netgraphs) {
    await netgraph.start();
    cleanups.push(() => netgraph.stop('SIGTERM'));
  }
  const config = renderHaproxyConfig({
    bind: `127.0.0.1:${lbPort}`,
    // --keep keeps HAProxy's log of every request (haproxy.log), to see what each failure was
    log: `stdout format raw local0 ${values.keep ? 'info' : 'notice'}`,
    servers: netgraphs.map((netgraph) => ({ name: netgraph.name, address: `127.0.0.1:${netgraph.port}` })),
  });
  const haproxy = await startHaproxy({ config, dir, port: lbPort });
  cleanups.push(() => haproxy.stop());

  const revokedAt = new Map();
  const schedule = buildSchedule({ netgraphs, redis, postgres, keys, revokedAt });
  epoch = performance.now();
  const load = startLoad({ baseUrl: `http://127.0.0.1:${lbPort}`, keys, serials, concurrency, runId: Date.now().toString(36), now });
  const ticker = setInterval(() => progress(`${(now() / 1000).toFixed(0)} s: ${load.records.length} answered ${JSON.stringify(countByStatus(load.records))}`), 5_000);
  const faults = [];
  try {
    for (const step of schedule) {
      await sleep(Math.max(0, step.at * durationMs - now()));
      progress(`${(now() / 1000).toFixed(1)} s: ${step.name}`);
      const startedAt = now();
      await step.run();
      faults.push({ name: step.name, startedAt, restoredAt: now() });
    }
    await sleep(Math.max(0, durationMs - now()));
  } finally {
    clearInterval(ticker);
    await load.stop();
  }
  const endedAt = now();
  if (values.keep) fs.writeFileSync(path.join(dir, 'records.json'), JSON.stringify({ faults, revokedAt: [...revokedAt], records: load.records }));
  const lost = await countLost(postgres.url, { writes: load.ackedWrites, reports: load.ackedReports });
  return figures({ records: load.records, faults, endedAt, revokedAt, lost, acked: load });
}

/**
 * The faults, each at a fraction of the run. A fault's run() resolves when
 * its dependency is back; revocations record when they were committed.
 */
function buildSchedule({ netgraphs, redis, postgres, keys, revokedAt }) {
  const [first, second] = netgraphs;
  const kill = (netgraph) => async () => {
    await netgraph.stop('SIGKILL');
    await sleep(2_000);
    await netgraph.start();
  };
  const drain = (netgraph) => async () => {
    const code = await netgraph.stop('SIGTERM');
    if (code !== 0) throw new Error(`${netgraph.name} exited ${code} on SIGTERM: it did not drain`);
    await sleep(1_000);
    await netgraph.start();
  };
  const stopRedis = (downMs) => async () => {
    await redis.stop();
    await sleep(downMs);
    await redis.start();
  };
  const restartPostgres = (downMs) => async () => {
    await postgres.stop();
    await sleep(downMs);
    await postgres.start();
  };
  // one key of each scope per revocation: the keys stay in the load's pool, so they keep being sent
  const revoke = (index) => async () => {
    const ids = [keys.read[index].id, keys.write[index].id, keys.ingest[index].id];
    await revokeKeys(postgres.url, ids);
    const at = now();
    for (const id of ids) revokedAt.set(id, at);
  };
  if (values.short) {
    return [
      { at: 0.15, name: `kill ${first.name} (SIGKILL), start it again`, run: kill(first) },
      { at: 0.4, name: 'revoke a read, a read_write and an ingest key', run: revoke(0) },
      { at: 0.5, name: 'stop Redis for 3 s, start it again', run: stopRedis(3_000) },
    ];
  }
  return [
    { at: 0.08, name: `kill ${first.name} (SIGKILL), start it again`, run: kill(first) },
    { at: 0.18, name: 'revoke a read, a read_write and an ingest key', run: revoke(0) },
    { at: 0.25, name: 'stop Redis for 5 s, start it again', run: stopRedis(5_000) },
    { at: 0.4, name: 'restart PostgreSQL (down 3 s)', run: restartPostgres(3_000) },
    { at: 0.55, name: `drain ${second.name} (SIGTERM), start it again`, run: drain(second) },
    { at: 0.65, name: 'revoke a second key of each scope', run: revoke(1) },
    { at: 0.72, name: `kill ${second.name} (SIGKILL), start it again`, run: kill(second) },
    { at: 0.82, name: 'restart PostgreSQL and stop Redis together (down 3 s)', run: () => Promise.all([restartPostgres(3_000)(), stopRedis(3_000)()]) },
    ...pauseReplica(),
  ];
}

/**
 * Hook for the read replica's fault (issue 14: "pauses the replica"). Empty
 * until the replica harness (a streaming replica of the chaos cluster,
 * READ_DATABASE_URL on the netgraph processes) is on main; then it returns a
 * step that runs pg_wal_replay_pause() on the replica for a few seconds and
 * resumes it, enabled by --with-replica.
 */
function pauseReplica() {
  return [];
}

/** The final report: what was sent and answered, what was lost, how the faults went. */
function figures({ records, faults, endedAt, revokedAt, lost, acked }) {
  const perFault = recoveries(faults, records, endedAt);
  return {
    command: ['npm run chaos', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    durationSeconds: Math.round(endedAt / 100) / 10,
    concurrency,
    requests: {
      sent: records.length,
      byStatus: countByStatus(records),
      byKind: Object.fromEntries(['read', 'write', 'report'].map((kind) => [kind, records.filter((r) => r.kind === kind).length])),
    },
    acknowledged: { writes: acked.ackedWrites.length, reports: acked.ackedReports.length },
    lost,
    longest5xxStretchMs: longestFailureStretchMs(records),
    faults: perFault,
    maxRecoveryMs: Math.max(0, ...perFault.map((f) => f.recoveryMs)),
    revokedKeysAccepted: revokedAccepted(records, revokedAt),
  };
}
