// npm run chaos [-- --duration 180 --concurrency 8 --json --no-replica]
//
// Two netgraph processes behind HAProxy, on a PostgreSQL cluster and a Redis
// of this run's own (free ports, a temp folder: never the shared 5432/6379),
// under mixed reads, writes and device reports, while faults hit them one by
// one: a process killed and started again, a process drained, PostgreSQL
// restarted, Redis stopped and started, keys revoked (and still used), and
// (unless --no-replica) a streaming replica of that PostgreSQL, which the
// processes read through READ_DATABASE_URL, paused and stopped. At the
// end it checks every acknowledged write and report against the database and
// prints the figures (docs/operations.md#chaos). --json prints only the final
// JSON; the progress lines otherwise go to stderr. --short runs the version
// the test suite runs (test/chaos.test.ts): fewer faults, a shorter duration,
// no replica unless --with-replica.
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
import { postgresBinaries, startReplicaPair } from './cluster/replica.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '180' },
    concurrency: { type: 'string', default: '8' },
    short: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // the read replica (READ_DATABASE_URL) and its faults: on by default in the full run, off in --short
    'with-replica': { type: 'boolean', default: false },
    'no-replica': { type: 'boolean', default: false },
  },
});
const durationMs = Number(values.duration) * 1000;
const concurrency = Number(values.concurrency);
if (!(durationMs >= 10_000) || !(concurrency >= 1)) {
  console.error('chaos: --duration must be at least 10 (seconds) and --concurrency at least 1');
  process.exit(2);
}
const withReplica = values['with-replica'] || (!values.short && !values['no-replica']);
const pgBin = withReplica ? postgresBinaries() : undefined;
if (withReplica && pgBin === undefined) {
  console.error('chaos: the replica needs PostgreSQL\'s initdb, pg_ctl and pg_basebackup (PG_BIN); run with --no-replica without them');
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
  const postgres = await startPostgres(pgPort);
  progress(`PostgreSQL at ${postgres.url}${postgres.replicaUrl ? ` (replica at ${postgres.replicaUrl})` : ''}, Redis on ${redisPort}, HAProxy on ${lbPort}, netgraph on ${ports.join(' and ')} (files in ${dir})`);
  const redis = createRedis({ port: redisPort, logFile: path.join(dir, 'redis.log') });
  await redis.start();
  cleanups.push(() => redis.stop());
  // a key of each scope per revocation, and one left unrevoked: the third revocation is the replica's
  const { keys, serials } = await seed(postgres.url, withReplica ? 4 : 3);

  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: postgres.url,
    ...(postgres.replicaUrl ? { READ_DATABASE_URL: postgres.replicaUrl } : {}),
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
 * PostgreSQL of this run: a primary with a streaming replica
 * (scripts/cluster/replica.mjs) or, without the replica, a cluster alone.
 * Either way { url, replicaUrl?, stop(), start(), pair? }, removed at the end.
 */
async function startPostgres(port) {
  if (!withReplica) {
    const cluster = await createPostgresCluster({ dir, port });
    cleanups.push(() => cluster.stop());
    return cluster;
  }
  const pair = await startReplicaPair(pgBin);
  cleanups.push(() => pair.stop());
  return { url: pair.primaryUrl, replicaUrl: pair.replicaUrl, stop: pair.stopPrimary, start: pair.startPrimary, pair };
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
  const revokeNow = async (index) => {
    const ids = [keys.read[index].id, keys.write[index].id, keys.ingest[index].id];
    await revokeKeys(postgres.url, ids);
    const at = now();
    for (const id of ids) revokedAt.set(id, at);
  };
  const revoke = (index) => () => revokeNow(index);
  const replica = replicaFaults(postgres.pair, revokeNow);
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
    ...replica.pause.map((step) => ({ at: 0.31, ...step })),
    { at: 0.4, name: 'restart PostgreSQL (down 3 s)', run: restartPostgres(3_000) },
    { at: 0.55, name: `drain ${second.name} (SIGTERM), start it again`, run: drain(second) },
    { at: 0.65, name: 'revoke a second key of each scope', run: revoke(1) },
    { at: 0.72, name: `kill ${second.name} (SIGKILL), start it again`, run: kill(second) },
    { at: 0.82, name: 'restart PostgreSQL and stop Redis together (down 3 s)', run: () => Promise.all([restartPostgres(3_000)(), stopRedis(3_000)()]) },
    ...replica.stop.map((step) => ({ at: 0.9, ...step })),
  ];
}

/**
 * The replica's faults (none without one): its replay paused for 8 s, longer
 * than READ_REPLICA_MAX_LAG_MS (5 s), with a key of each scope revoked 3 s in
 * (so a lagging replica that missed the revocation is what the keys meet if
 * anything trusted it); then the replica stopped for 5 s and started again.
 * Returned as { pause: [step], stop: [step] }, both empty without a replica.
 */
function replicaFaults(pair, revokeNow) {
  if (pair === undefined) return { pause: [], stop: [] };
  const pause = async () => {
    await pair.pauseReplay();
    await sleep(3_000);
    await revokeNow(2);
    await sleep(5_000);
    await pair.resumeReplay();
    await pair.waitForReplay(30_000);
  };
  const stop = async () => {
    await pair.stopReplica();
    await sleep(5_000);
    await pair.startReplica();
  };
  return {
    pause: [{ name: 'pause the replica\'s replay for 8 s, revoke a third key of each scope 3 s in', run: pause }],
    stop: [{ name: 'stop the replica (immediate) for 5 s, start it again', run: stop }],
  };
}

/** The final report: what was sent and answered, what was lost, how the faults went. */
function figures({ records, faults, endedAt, revokedAt, lost, acked }) {
  // revoked keys accepted per fault: the requests sent from its start until the next one's
  const perFault = recoveries(faults, records, endedAt).map((fault, i) => ({
    ...fault,
    revokedKeysAccepted: revokedAccepted(records.filter((r) => r.t0 >= faults[i].startedAt && r.t0 < (faults[i + 1]?.startedAt ?? endedAt)), revokedAt),
  }));
  return {
    command: ['npm run chaos', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    durationSeconds: Math.round(endedAt / 100) / 10,
    concurrency,
    replica: withReplica,
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
