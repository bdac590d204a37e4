// The ingest case's tables and its section of docs/benchmarks.md.
import { median } from './report.mjs';
import { RETENTION_DEFAULTS } from '../../dist/kernel/telemetry.js';
import { storagePerDevice } from './storage.mjs';

export const INGEST_DOCS_START = '<!-- bench:ingest:start -->';
export const INGEST_DOCS_END = '<!-- bench:ingest:end -->';

const STORE_LABEL = { postgres: 'PostgreSQL', sqlite: 'SQLite' };
const TARGET_LABEL = { netgraph: 'netgraph', 'ingest-floor': 'ingest floor' };

const n0 = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const fixed = (v, digits) => (Number.isFinite(v) ? v.toFixed(digits) : '–');
const ratio = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : '–');
const size = (v) => (v >= 2 ** 30 ? `${(v / 2 ** 30).toFixed(1)} GiB` : v >= 2 ** 20 ? `${(v / 2 ** 20).toFixed(1)} MiB` : `${(v / 2 ** 10).toFixed(0)} KiB`);

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Medians over the rounds per target kind, and netgraph's samples/s as a ratio to the floor's within each round. */
export function summarizeIngest(rounds) {
  const out = {};
  for (const kind of ['netgraph', 'ingest-floor']) {
    const runs = rounds.map((r) => r[kind]).filter(Boolean);
    out[kind] = {
      reportsPerSecond: median(runs.map((r) => r.reportsPerSecond)),
      samplesPerSecond: median(runs.map((r) => r.samplesPerSecond)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      appCpuPerReportMs: median(runs.map((r) => r.appCpuPerReportMs)),
      dbCpuPerReportMs: median(runs.map((r) => r.dbCpuPerReportMs)),
      batches: runs.reduce((sum, r) => sum + r.batches, 0),
      failures: runs.reduce((sum, r) => sum + r.failures, 0),
      retries: runs.reduce((sum, r) => sum + r.retries, 0),
    };
  }
  const within = rounds.map((r) => r.netgraph.samplesPerSecond / r['ingest-floor'].samplesPerSecond);
  out.netgraph.vsFloor = median(within);
  out.netgraph.vsFloorRange = [Math.min(...within), Math.max(...within)];
  return out;
}

/** True when every batch of the ingest case was accepted whole. */
export function ingestFailed(ingest) {
  return Object.values(ingest.stores).some((s) => s.rounds.some((r) => Object.values(r).some((run) => run.failures > 0)));
}

/** The ingest tables: throughput against the floor, reads under ingest, one SQLite process, storage. */
export function ingestTables(ingest) {
  const throughput = [];
  const reads = [];
  const openLoop = [];
  const storage = [];
  for (const [store, s] of Object.entries(ingest.stores)) {
    const summary = summarizeIngest(s.rounds);
    for (const kind of ['netgraph', 'ingest-floor']) {
      const t = summary[kind];
      const db = store === 'sqlite' ? 0 : t.dbCpuPerReportMs;
      throughput.push([STORE_LABEL[store], TARGET_LABEL[kind], n0(t.reportsPerSecond), n0(t.samplesPerSecond),
        kind === 'netgraph' ? `${ratio(t.vsFloor)} (${t.vsFloorRange.map((v) => v.toFixed(2)).join('–')})` : '1.00x',
        fixed(t.p50, 0), fixed(t.p99, 0), fixed(t.appCpuPerReportMs, 2), store === 'sqlite' ? 'in server' : fixed(db, 2), fixed(t.appCpuPerReportMs + db, 2),
        (t.failures === 0 ? `${n0(t.batches)} ok` : `${t.failures} FAILED`) + (t.retries > 0 ? `, ${t.retries} 503 retried` : '')]);
    }
    for (const [id, r] of Object.entries(s.openLoop ?? {})) {
      openLoop.push([STORE_LABEL[store], id, n0(r.rate), `${fixed(r.alone.p50, 1)} / ${fixed(r.busy.p50, 1)}`, ratio(r.p50Ratio),
        `${fixed(r.alone.p99, 1)} / ${fixed(r.busy.p99, 1)}`, ratio(r.p99Ratio), `${r.alone.failures} / ${r.busy.failures}`,
        `${n0(r.ingest.reportsPerSecond)}, ${r.ingest.failures} failed, ${fixed(r.ingest.maxStartLagMs, 0)} ms behind at most`, r.met ? 'met' : '**not met**']);
    }
    for (const [id, r] of Object.entries(s.underIngest)) {
      reads.push([STORE_LABEL[store], id, n0(r.alone.requestsPerSecond), n0(r.under.requestsPerSecond), n0(r.ingest.reportsPerSecond), ratio(r.ratio)]);
    }
    if (s.storage) {
      const per = storagePerDevice(s.storage);
      const d = per.perDeviceDay;
      storage.push([STORE_LABEL[store], `${s.storage.devices} x ${s.storage.hours} h`, size(d.raw), size(d.rollups), size(d.hourly), size(d.daily), size(d.history),
        size(per.perDeviceRetained), s.storage.written ? size(storagePerDevice({ ...s.storage, delta: s.storage.written }).perDeviceRetained) : '–',
        size(per.fleet1000), size(per.fleet10000)]);
    }
  }
  const sqlite = ingest.stores.sqlite?.oneProcess;
  return [
    table(['store', 'target', 'reports/s', 'samples/s', 'samples/s x floor (rounds)', 'p50 ms/batch', 'p99 ms/batch', 'CPU ms/report server', 'CPU ms/report db', 'CPU ms/report total', 'batches'], throughput),
    reads.length > 0 ? table(['store', 'query', 'req/s alone', 'req/s with ingest', 'ingest reports/s meanwhile', 'with / alone'], reads) : '',
    sqlite
      ? `One netgraph process on SQLite, reports scheduled at ${n0(sqlite.rate)}/s (10,000 devices every 30 s): ${n0(sqlite.reportsPerSecond)} reports/s done, ` +
        `p50 ${fixed(sqlite.p50, 0)} ms, p99 ${fixed(sqlite.p99, 0)} ms a batch, ${fixed(sqlite.appCpuPerReportMs, 2)} ms CPU a report` +
        (sqlite.maxStartLagMs === undefined ? '' : `, the latest batch ${fixed(sqlite.maxStartLagMs, 0)} ms behind its slot`) +
        `: ${sqlite.sustained ? 'sustained' : 'NOT sustained'}.`
      : '',
    storage.length > 0
      ? table(['store', 'devices x hours', 'raw / device / day', '5-min rollups / device / day', 'hourly / device / day', 'daily / device / day', 'history / device / day', 'per device, default retentions', 'the same, as written (dead row versions kept)', '1,000 devices', '10,000 devices'], storage)
      : '',
    openLoop.length > 0
      ? table(['store', 'query', 'req/s offered', 'p50 ms alone / with the fleet', 'p50 ratio (goal ≤ 1.25x)', 'p99 ms alone / with the fleet', 'p99 ratio (goal ≤ 2x)',
        'failed reads alone / with', 'fleet reports/s (333 scheduled)', 'goal 4'], openLoop)
      : '',
  ];
}

/** The ingest section of docs/benchmarks.md. */
export function ingestMarkdown(results) {
  const f = results.ingest.fleet;
  const o = results.options;
  const m = results.machine;
  const [throughput, reads, single, storage, openLoop] = ingestTables(results.ingest);
  return [
    `Run of ${results.finishedAt.slice(0, 16).replace('T', ' ')} UTC${o.quick ? ' (--quick: tiny data, not a measurement)' : ''}.`,
    '',
    `- Machine: ${m.cores} cores (${m.cpuModel}); Node.js ${m.node}; ${m.postgres}; load average ${m.loadBefore} before, ${m.loadAfter} after.${m.note ? ` ${m.note}.` : ''}`,
    `- Fleet: ${n0(f.devices)} hardware devices of the bench data, each report ${f.clients} clients (${f.wireless ?? 12} wireless${f.wireless === undefined ? '' : ', each with a band, a channel and an SNR'}), ${f.ports} ports with counters and ${f.uplinkSamples} uplink samples, ` +
      `${f.batch} reports a batch (one company's), ${f.batches} batches a fleet round, observedAt ${f.intervalSeconds} s apart per device. ` +
      `Samples = the time-series rows a report writes: ${f.ports} port counter readings + ${f.uplinkSamples} uplink samples + ${f.clients} client observations = ${f.samplesPerReport}.`,
    `- ${o.workers} workers per server, netgraph at LOG_LEVEL=info; 4 senders, each posting its next batch when the last is answered; ${o.duration} s per run, ${o.rounds} round${o.rounds === 1 ? '' : 's'}, netgraph and the floor alternated on one database per store.`,
    '',
    throughput,
    '',
    'Reads while the fleet reports (netgraph, 2 workers, LOG_LEVEL=info; the reports scheduled at 10,000 devices every 30 s by 2 senders; each answer checked for a 200 with data, not byte for byte, as ingest moves lastSeen):',
    '',
    reads,
    '',
    ...(openLoop
      ? [
          'Reads at a fixed rate (issue 31, goal 4): each read offered open loop at half the rate it reached alone above (every request sent at its slot, its latency counted from the slot), ' +
            'first alone, then while the fleet reports at 10,000 devices every 30 s; met when p50 stays within 1.25x and p99 within 2x of alone, no read fails and every report goes in on schedule:',
          '',
          openLoop,
          '',
        ]
      : []),
    single,
    '',
    `Storage: the rows one batch of devices adds reporting every 30 s for 2 hours, times each table's bytes per row with its indexes (PostgreSQL \`pg_total_relation_size\` over the table's partitions after \`VACUUM FULL\`, the live rows, as autovacuum keeps them; SQLite \`dbstat\`; over \`count(*)\`), written by netgraph, per device per day (a tier counts the whole buckets the reports touched: a daily tier's rows of 2 hours are its rows of a day); then with the default retentions (src/kernel/telemetry.ts): raw series and receipts 48 h, 5-minute rollups ${RETENTION_DEFAULTS.rollupRetentionDays} d, hourly tiers ${RETENTION_DEFAULTS.hourlyRetentionDays} d, daily tiers ${RETENTION_DEFAULTS.dailyRetentionDays} d, events and client history ${RETENTION_DEFAULTS.eventRetentionDays} d (device state is bounded per device and left out; these clients never leave, so client history does not grow here). The column "as written" is the same before the vacuum: on PostgreSQL without autovacuum (as on this machine), every update of a rollup row leaves its old version behind:`,
    '',
    storage,
  ].join('\n');
}
