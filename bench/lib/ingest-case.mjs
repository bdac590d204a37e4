// The ingest case of the runner: netgraph (LOG_LEVEL=info) against the
// ingest floor on each store, reads while the fleet reports, one SQLite
// process at the fleet's rate, and the storage the reports take.
import { FLEET, FLEET_RATE, SAMPLES_PER_REPORT, createBatchFactory, runIngest, selectFleet } from './ingest.mjs';
import { runLoad } from './load.mjs';
import { runOpenLoop } from './open-loop.mjs';
import { INGEST_TARGETS, startTarget } from './targets.mjs';
import { storageByTable, storageDelta, storageSnapshot } from './storage.mjs';

/** The read cases measured while the fleet reports. */
export const READS_UNDER_INGEST = ['networkClients', 'virtualDevice'];

/** Concurrent senders of the throughput runs. */
const SENDERS = 4;

/** The companies whose keys the fleet's batches need. */
export function fleetCompanies(document) {
  return [...new Set(selectFleet(document).devices.map((d) => d.company))];
}

const answers = async (t) => {
  await fetch(`${t.url}/api/v1/reports`);
  return true;
};

/**
 * Measures ingest on each store (`stores`: names with urls and ingest keys).
 * `cleanups` takes the targets' stops; `reads` gives, per store, the checked
 * read requests of READS_UNDER_INGEST for netgraph on that store.
 */
export async function measureIngest({ document, stores, options, temp, dbPids, cleanups, reads, log }) {
  const fleet = selectFleet(document);
  // 40 h back: 30 s steps stay inside the 48 h raw retention and never reach the clock
  const startMs = Date.now() - 40 * 3_600_000;
  const out = { fleet: { devices: fleet.devices.length, batches: fleet.batches.length, ...FLEET, samplesPerReport: SAMPLES_PER_REPORT }, stores: {} };
  for (const store of stores) {
    // one clock per database: no target may report a device older than another target did
    const factory = createBatchFactory(fleet, startMs);
    const start = async (name, workers = options.workers) => {
      const target = await startTarget({
        name, spec: INGEST_TARGETS[name] ?? INGEST_TARGETS[`netgraph-${store.name}`], databaseUrl: store.url, workers, logDir: temp, keys: store.keys,
        probe: answers, env: { LOG_LEVEL: 'info' },
      });
      cleanups.unshift(() => target.stop());
      return target;
    };
    const request = (target) => (batch) =>
      target.kind === 'netgraph'
        ? { path: '/api/v1/reports', headers: { authorization: `Bearer ${store.keys.get(batch.company)}` } }
        : { path: '/reports', headers: {} };
    const ingest = (target, seconds, extra = {}) =>
      runIngest({ url: target.url, factory, request: request(target), senders: SENDERS, seconds, ...extra });
    const measure = (target) => ({ appPids: target.pids, dbPids: store.name === 'postgres' ? dbPids : async () => [] });

    const netgraph = await start(`netgraph-${store.name}`);
    const floor = await start(`ingest-floor-${store.name}`);
    const targets = [netgraph, floor];
    // first, on the freshly loaded database: every rollup tier row it needs is new (the fleet's reports later share its day)
    const storage = await measureStorage(fleet, store, (factoryOfBatch, limit) =>
      runIngest({ url: netgraph.url, factory: factoryOfBatch, request: request(netgraph), senders: 1, seconds: 600, limit }));
    log(`storage on ${store.name}: ${storage.devices} devices, ${STORAGE_HOURS} h of reports: ${JSON.stringify(storage.delta)} bytes live, ` +
      `${JSON.stringify(storage.written)} as written`);
    const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
    log(`storage on ${store.name} per device per day, live, by table: ` +
      storageByTable(storage).map((t) => `${t.table} (${t.group}) ${kib(t.perDeviceDay)}`).join(', '));
    if (options.warmup > 0) for (const t of targets) await ingest(t, options.warmup);
    const rounds = [];
    for (let r = 0; r < options.rounds; r++) {
      const round = {};
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        round[t.kind] = await ingest(t, options.duration, { measure: measure(t) });
        const res = round[t.kind];
        log(`ingest ${store.name} round ${r + 1}/${options.rounds} ${t.name}: ${Math.round(res.reportsPerSecond)} reports/s, p50 ${res.p50.toFixed(0)} ms` +
          (res.failures ? `, ${res.failures} failed: ${res.firstFailure}` : ''));
      }
      rounds.push(round);
    }
    const fleetReporting = (seconds) => ingest(netgraph, seconds, { senders: 2, rate: FLEET_RATE });
    const underIngest = await readsUnderIngest(netgraph, reads.get(store.name) ?? new Map(), options, fleetReporting, log);
    const openLoop = await readsOpenLoop(netgraph, reads.get(store.name) ?? new Map(), underIngest, options, fleetReporting, log);
    for (const t of targets) await t.stop();
    const single = store.name === 'sqlite' ? await oneProcess(await start('netgraph-sqlite-1', 1), options, ingest, log) : undefined;
    out.stores[store.name] = { rounds, storage, underIngest, openLoop, oneProcess: single };
  }
  return out;
}

/**
 * Each read case alone, with the fleet reporting at its rate in the
 * background, and alone again (alone: the mean of both). Answers change under ingest (lastSeen moves), so these runs
 * check only that each answer is a 200 with data and no errors.
 */
async function readsUnderIngest(target, requests, options, background, log) {
  const out = {};
  for (const id of READS_UNDER_INGEST) {
    const prepared = requests.get(id);
    if (!prepared) continue;
    const load = () => runLoad({ url: target.url, requests: prepared, connections: options.connections, seconds: options.duration, check: 'data' });
    // alone before and after, so a database still busy from earlier writes weighs on both sides
    const before = await load();
    const [under, ingest] = await Promise.all([load(), background(options.duration)]);
    const after = await load();
    const alone = { requestsPerSecond: (before.requestsPerSecond + after.requestsPerSecond) / 2, before, after };
    out[id] = { alone, under, ingest, ratio: under.requestsPerSecond / alone.requestsPerSecond };
    log(`${id} on ${target.name}: ${Math.round(alone.requestsPerSecond)} req/s alone, ${Math.round(under.requestsPerSecond)} req/s with ${Math.round(ingest.reportsPerSecond)} reports/s`);
  }
  return out;
}

/**
 * Issue 31's goal 4: each read case offered at a fixed rate, half of what
 * it reached alone (readsUnderIngest's closed loop), open loop
 * (runOpenLoop: latency from each request's slot), first alone and then
 * with the fleet reporting at its rate. Met when p50 stays within 1.25x and
 * p99 within 2x of alone, no read fails, and the fleet's reports all go in
 * on schedule (onSchedule).
 */
async function readsOpenLoop(target, requests, closedLoop, options, background, log) {
  const out = {};
  for (const id of READS_UNDER_INGEST) {
    const prepared = requests.get(id);
    const reached = closedLoop[id]?.alone.requestsPerSecond;
    if (!prepared || !reached) continue;
    const rate = reached / 2;
    const offer = () => runOpenLoop({ url: target.url, requests: prepared, rate, seconds: options.duration });
    const alone = await offer();
    const [busy, ingest] = await Promise.all([offer(), background(options.duration)]);
    const result = { rate, alone, busy, ingest, p50Ratio: busy.p50 / alone.p50, p99Ratio: busy.p99 / alone.p99, onSchedule: onSchedule(ingest, FLEET_RATE) };
    result.met = result.p50Ratio <= 1.25 && result.p99Ratio <= 2 && alone.failures === 0 && busy.failures === 0 && result.onSchedule;
    out[id] = result;
    log(`${id} on ${target.name} at ${Math.round(rate)} req/s: p50 ${alone.p50.toFixed(1)} -> ${busy.p50.toFixed(1)} ms, p99 ${alone.p99.toFixed(1)} -> ${busy.p99.toFixed(1)} ms ` +
      `with ${Math.round(ingest.reportsPerSecond)} reports/s (${result.onSchedule ? 'on schedule' : 'NOT on schedule'}), ${busy.failures} failed reads: goal 4 ${result.met ? 'met' : 'NOT met'}`);
  }
  return out;
}

/** Whether a run at a scheduled `rate` kept it: every batch accepted, the schedule's reports done, and no batch started a whole batch interval behind its slot. */
function onSchedule(result, rate) {
  return result.failures === 0 && result.reportsPerSecond >= 0.98 * rate && result.maxStartLagMs < (FLEET.batch / rate) * 1000;
}

/** Hours of reports the storage measurement writes for one batch of devices. */
const STORAGE_HOURS = 2;

/**
 * The growth of the tables when one batch of devices reports every 30 s for
 * STORAGE_HOURS, in times before the fleet's (46 h back, inside the 48 h
 * raw retention), so no report of the fleet is older than theirs.
 * netgraph writes them, so its rollup tiers are counted (the floor writes
 * only the raw rows and 5-minute rollups). `post(factory, limit)` sends the
 * batches.
 */
async function measureStorage(fleet, store, post) {
  const batch = fleet.batches[0];
  const startMs = Date.now() - 46 * 3_600_000;
  const factory = createBatchFactory({ devices: batch.devices, batches: [batch] }, startMs);
  const before = await storageSnapshot(store, { compact: true });
  const result = await post(factory, (STORAGE_HOURS * 3600) / FLEET.intervalSeconds);
  if (result.failures > 0) throw new Error(`storage run on ${store.name}: ${result.firstFailure}`);
  // as written first (PostgreSQL: with the dead row versions of the rollups' updates), then live (see storageSnapshot)
  const written = storageDelta(before, await storageSnapshot(store));
  const delta = storageDelta(before, await storageSnapshot(store, { compact: true }));
  // the last round's reports observe at startMs + (rounds - 1) * interval (createBatchFactory)
  const endMs = startMs + (result.reports / batch.devices.length - 1) * FLEET.intervalSeconds * 1000;
  return { devices: batch.devices.length, hours: STORAGE_HOURS, startMs, endMs, reports: result.reports, delta, written };
}

/** One SQLite process at the fleet's rate: does it keep up? */
async function oneProcess(target, options, ingest, log) {
  const result = await ingest(target, options.duration, { senders: 4, rate: FLEET_RATE, measure: { appPids: target.pids, dbPids: async () => [] } });
  await target.stop();
  const sustained = onSchedule(result, FLEET_RATE);
  log(`one SQLite process at ${Math.round(FLEET_RATE)} reports/s: ${Math.round(result.reportsPerSecond)} reports/s, p99 ${result.p99.toFixed(0)} ms, ` +
    `at most ${result.maxStartLagMs.toFixed(0)} ms behind schedule (${sustained ? 'sustained' : 'NOT sustained'})`);
  return { ...result, rate: FLEET_RATE, sustained };
}
