// The ingest case of the runner: netgraph (LOG_LEVEL=info) against the
// ingest floor on each store, reads while the fleet reports, one SQLite
// process at the fleet's rate, and the storage the reports take.
import { FLEET, FLEET_RATE, SAMPLES_PER_REPORT, createBatchFactory, runIngest, selectFleet } from './ingest.mjs';
import { runLoad } from './load.mjs';
import { INGEST_TARGETS, startTarget } from './targets.mjs';
import { storageSnapshot, storageDelta } from './storage.mjs';

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
    if (options.warmup > 0) for (const t of targets) await ingest(t, options.warmup);
    const rounds = [];
    const storage = [];
    for (let r = 0; r < options.rounds; r++) {
      const round = {};
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        const before = t === netgraph ? await storageSnapshot(store) : undefined;
        round[t.kind] = await ingest(t, options.duration, { measure: measure(t) });
        if (before) storage.push(storageDelta(before, await storageSnapshot(store), round[t.kind].reports));
        const res = round[t.kind];
        log(`ingest ${store.name} round ${r + 1}/${options.rounds} ${t.name}: ${Math.round(res.reportsPerSecond)} reports/s, p50 ${res.p50.toFixed(0)} ms` +
          (res.failures ? `, ${res.failures} failed: ${res.firstFailure}` : ''));
      }
      rounds.push(round);
    }
    const underIngest = await readsUnderIngest(netgraph, reads.get(store.name) ?? new Map(), options, (seconds) =>
      ingest(netgraph, seconds, { senders: 2, rate: FLEET_RATE }), log);
    for (const t of targets) await t.stop();
    const single = store.name === 'sqlite' ? await oneProcess(await start('netgraph-sqlite-1', 1), options, ingest, log) : undefined;
    out.stores[store.name] = { rounds, storage, underIngest, oneProcess: single };
  }
  return out;
}

/**
 * Each read case alone, then with the fleet reporting at its rate in the
 * background. Answers change under ingest (lastSeen moves), so these runs
 * check only that each answer is a 200 with data and no errors.
 */
async function readsUnderIngest(target, requests, options, background, log) {
  const out = {};
  for (const id of READS_UNDER_INGEST) {
    const prepared = requests.get(id);
    if (!prepared) continue;
    const load = () => runLoad({ url: target.url, requests: prepared, connections: options.connections, seconds: options.duration, check: 'data' });
    const alone = await load();
    const [under, ingest] = await Promise.all([load(), background(options.duration)]);
    out[id] = { alone, under, ingest, ratio: under.requestsPerSecond / alone.requestsPerSecond };
    log(`${id} on ${target.name}: ${Math.round(alone.requestsPerSecond)} req/s alone, ${Math.round(under.requestsPerSecond)} req/s with ${Math.round(ingest.reportsPerSecond)} reports/s`);
  }
  return out;
}

/** One SQLite process at the fleet's rate: does it keep up? */
async function oneProcess(target, options, ingest, log) {
  const result = await ingest(target, options.duration, { senders: 4, rate: FLEET_RATE, measure: { appPids: target.pids, dbPids: async () => [] } });
  await target.stop();
  const sustained = result.failures === 0 && result.reportsPerSecond >= 0.98 * FLEET_RATE;
  log(`one SQLite process at ${Math.round(FLEET_RATE)} reports/s: ${Math.round(result.reportsPerSecond)} reports/s, p99 ${result.p99.toFixed(0)} ms (${sustained ? 'sustained' : 'NOT sustained'})`);
  return { ...result, rate: FLEET_RATE, sustained };
}
