// Summaries of the rounds, the tables, and the results section of docs/benchmarks.md.
import fs from 'node:fs';
import { TARGETS } from './targets.mjs';

export const DOCS_START = '<!-- bench:results:start -->';
export const DOCS_END = '<!-- bench:results:end -->';

/** The median of finite numbers; NaN when there are none. */
export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Per target: the median of each metric over the rounds, and the ratios to
 * the floor taken within each round (targets of one round ran minutes apart
 * at most), then their median.
 */
export function summarize(rounds, targets, baseline = 'floor') {
  const summary = {};
  for (const name of targets) {
    const runs = rounds.map((round) => round[name]).filter(Boolean);
    // a target that does not take this case (the LOG_LEVEL=info targets outside the point lookups)
    if (runs.length === 0) continue;
    const within = (metric) =>
      rounds.map((round) => (round[name] && round[baseline] ? round[name][metric] / round[baseline][metric] : Number.NaN));
    summary[name] = {
      requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      appCpuPerRequestMs: median(runs.map((r) => r.appCpuPerRequestMs)),
      dbCpuPerRequestMs: median(runs.map((r) => r.dbCpuPerRequestMs)),
      statementsPerRequest: median(runs.map((r) => r.statementsPerRequest)),
      peakRssBytes: Math.max(...runs.map((r) => r.peakRssBytes)),
      checked: runs.reduce((sum, r) => sum + r.checked, 0),
      // a wrong body or a non-200 invalidates the run; a connection error or timeout is the target's own result
      failures: runs.reduce((sum, r) => sum + r.failures, 0),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
      rpsVsFloor: median(within('requestsPerSecond')),
      rpsVsFloorRange: [Math.min(...within('requestsPerSecond')), Math.max(...within('requestsPerSecond'))],
      p50VsFloor: median(within('p50')),
    };
  }
  return summary;
}

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const thousands = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const ratio = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '–');
const range = ([low, high]) => (Number.isFinite(low) && Number.isFinite(high) ? `${low.toFixed(2)}–${high.toFixed(2)}` : '–');
const bytes = (value) =>
  !Number.isFinite(value) ? '–' : value >= 1e6 ? `${(value / 1e6).toFixed(2)} MB` : value >= 1e3 ? `${(value / 1e3).toFixed(1)} kB` : `${Math.round(value)} B`;

function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The headline: req/s of every target as a ratio to the floor, per case. */
export function headlineTable(results) {
  const targets = results.targets.filter((t) => t !== 'floor');
  const header = ['query', ...targets.map((t) => results.labels[t]), 'floor req/s', 'netgraph p50 / floor p50'];
  const rows = results.cases.map((c) => [
    c.title,
    ...targets.map((t) => ratio(c.summary[t]?.rpsVsFloor)),
    thousands(c.summary.floor?.requestsPerSecond),
    targets
      .filter((t) => t.startsWith('netgraph'))
      .map((t) => `${ratio(c.summary[t]?.p50VsFloor)} (${t.replace('netgraph-', '')})`)
      .join(', '),
  ]);
  return markdownTable(header, rows);
}

/**
 * What the default log level costs: per case and store where netgraph ran at
 * both levels, req/s at warn and at info and their ratio (median of the
 * per-round ratios, the two runs of a round being minutes apart at most),
 * and, where the store's control target ran (the warn target once more),
 * the same ratio between the two identical servers: the run's noise.
 * Undefined when no case ran at both.
 */
export function logLevelTable(results) {
  const rows = [];
  for (const c of results.cases) {
    for (const warn of results.targets.filter((t) => results.labels[t] && c.summary[`${t}-info`] && c.summary[t])) {
      const info = `${warn}-info`;
      const ratios = perRound(c, warn, info);
      const control = results.targets.find((t) => TARGETS[t]?.controlOf === warn && c.summary[t]);
      const controlRatios = control === undefined ? undefined : perRound(c, warn, control);
      const s = c.summary;
      rows.push([
        c.title,
        results.stores[warn] === 'sqlite' ? 'SQLite' : 'PostgreSQL',
        thousands(s[warn].requestsPerSecond),
        thousands(s[info].requestsPerSecond),
        ratio(median(ratios)),
        range([Math.min(...ratios), Math.max(...ratios)]),
        fixed(s[warn].p50, 2),
        fixed(s[info].p50, 2),
        fixed(s[warn].appCpuPerRequestMs, 3),
        fixed(s[info].appCpuPerRequestMs, 3),
        controlRatios === undefined ? '–' : `${ratio(median(controlRatios))} (${range([Math.min(...controlRatios), Math.max(...controlRatios)])})`,
      ]);
    }
  }
  if (rows.length === 0) return undefined;
  const header = [
    'query',
    'store',
    'req/s warn',
    'req/s info',
    'info / warn',
    'info / warn, rounds',
    'p50 ms warn',
    'p50 ms info',
    'CPU ms/req server warn',
    'CPU ms/req server info',
    'control / warn (rounds)',
  ];
  return markdownTable(header, rows);
}

/** Per round of a case, req/s of target `b` over target `a` (NaN where either did not run). */
function perRound(c, a, b) {
  return c.rounds.map((round) => (round[a] && round[b] ? round[b].requestsPerSecond / round[a].requestsPerSecond : Number.NaN));
}

/**
 * What the per-key request log costs: per case and store where netgraph ran
 * with API_REQUEST_LOG on (its target) and off (its `-reqlog-off` target),
 * req/s of each and on / off (median of the per-round ratios); the goal is
 * on at most 3% below off. Undefined when no case ran both.
 */
export function requestLogTable(results) {
  const rows = [];
  for (const c of results.cases) {
    for (const off of results.targets.filter((t) => TARGETS[t]?.requestLogOf && c.summary[t] && c.summary[TARGETS[t].requestLogOf])) {
      const on = TARGETS[off].requestLogOf;
      const ratios = perRound(c, off, on);
      const s = c.summary;
      const ratioOn = median(ratios.filter(Number.isFinite));
      rows.push([
        c.title,
        results.stores[on] === 'sqlite' ? 'SQLite' : 'PostgreSQL',
        thousands(s[off].requestsPerSecond),
        thousands(s[on].requestsPerSecond),
        ratio(ratioOn),
        range([Math.min(...ratios), Math.max(...ratios)]),
        fixed(s[off].p50, 2),
        fixed(s[on].p50, 2),
        fixed(s[off].appCpuPerRequestMs, 3),
        fixed(s[on].appCpuPerRequestMs, 3),
        ratioOn >= 0.97 ? 'yes' : 'no',
      ]);
    }
  }
  if (rows.length === 0) return undefined;
  const header = ['query', 'store', 'req/s log off', 'req/s log on', 'on / off', 'on / off, rounds', 'p50 ms off', 'p50 ms on', 'CPU ms/req server off', 'CPU ms/req server on', 'within 3%'];
  return markdownTable(header, rows);
}

/** Every metric of every target, per case. */
export function detailTable(results) {
  const header = ['query', 'target', 'req/s', 'x floor', 'x floor, rounds', 'p50 ms', 'p99 ms', 'CPU ms/req server', 'CPU ms/req db', 'CPU ms/req total', 'statements/req', 'response', 'peak RSS', 'checked'];
  const rows = [];
  for (const c of results.cases) {
    for (const t of results.targets) {
      const s = c.summary[t];
      if (!s) continue;
      rows.push([
        c.title,
        results.labels[t],
        thousands(s.requestsPerSecond),
        ratio(s.rpsVsFloor),
        range(s.rpsVsFloorRange),
        fixed(s.p50, 2),
        fixed(s.p99, 2),
        fixed(s.appCpuPerRequestMs, 3),
        results.stores[t] === 'sqlite' ? 'in server' : fixed(s.dbCpuPerRequestMs, 3),
        fixed(s.appCpuPerRequestMs + (results.stores[t] === 'sqlite' ? 0 : s.dbCpuPerRequestMs), 3),
        fixed(s.statementsPerRequest, 2),
        bytes(c.responseBytes[t]),
        bytes(s.peakRssBytes),
        (s.failures === 0 ? `${thousands(s.checked)} ok` : `${s.failures} WRONG of ${thousands(s.checked)}`) +
          (s.errors > 0 ? `, ${s.errors} connection error${s.errors === 1 ? '' : 's'} or timeout${s.errors === 1 ? '' : 's'}` : ''),
      ]);
    }
  }
  return markdownTable(header, rows);
}

/** The results section as markdown: run facts, headline, details, import times. */
export function resultsMarkdown(results) {
  const m = results.machine;
  const o = results.options;
  const d = results.dataset;
  const imports = Object.entries(results.imports)
    .map(([store, i]) => `${store} ${i.seconds.toFixed(1)} s (the command, with JSON parsing and validation: ${i.wallSeconds.toFixed(1)} s)`)
    .join('; ');
  return [
    `Run of ${results.finishedAt.slice(0, 16).replace('T', ' ')} UTC${o.quick ? ' (--quick: tiny data, not a measurement)' : ''}.`,
    '',
    `- Machine: ${m.cores} cores (${m.cpuModel}), ${(m.memoryBytes / 2 ** 30).toFixed(0)} GiB; Node.js ${m.node}; ${m.postgres}; load average ${m.loadBefore} before, ${m.loadAfter} after.`,
    ...(m.note ? [`- ${m.note}`] : []),
    `- Data: ${d.companies} companies, ${d.networks.toLocaleString('en-US')} networks, ${d.virtualDevices.toLocaleString('en-US')} virtual devices, ${d.clients.toLocaleString('en-US')} clients (scale ${o.scaleText}).`,
    `- netgraph import: ${imports}.`,
    `- Each server ${o.workers} worker processes; autocannon ${o.connections} connections, ${o.duration} s per run after a ${o.warmup} s warm-up, ${o.rounds} round${o.rounds === 1 ? '' : 's'}, ${o.sideBySide ? 'targets loaded side by side (all at once, sharing the cores; --side-by-side)' : 'targets alternated'}; medians.`,
    '',
    'Requests per second as a ratio to the raw-SQL floor (median of the per-round ratios; higher is better), and netgraph\'s p50 latency as a ratio to the floor\'s (lower is better):',
    '',
    headlineTable(results),
    '',
    ...(logLevelTable(results) === undefined
      ? []
      : [
          'The default log level: netgraph at `LOG_LEVEL=warn` (the targets above) and at `info` (one JSON request line per request, written asynchronously, as users run it), in the same rounds (the goal is info within 5% of warn):',
          '',
          logLevelTable(results),
          '',
        ]),
    ...(requestLogTable(results) === undefined
      ? []
      : [
          'The per-key request log: netgraph with `API_REQUEST_LOG` on (the default, the targets above) and off, in the same rounds (the goal is on within 3% of off):',
          '',
          requestLogTable(results),
          '',
        ]),
    'Every figure (medians over the rounds; "checked" counts the responses compared with the expected answer; "x floor, rounds" is the lowest and highest per-round ratio, a measure of the noise; CPU is user + system time of the server processes, and of the PostgreSQL backends of the benchmark database, divided by the requests served; RSS is the peak of the server processes together; response is the body size):',
    '',
    detailTable(results),
  ].join('\n');
}

/** Replaces a section of docs/benchmarks.md (between the markers, by default the read results') with `markdown`. */
export function writeDocsSection(file, markdown, markers = [DOCS_START, DOCS_END]) {
  const text = fs.readFileSync(file, 'utf8');
  const [startMark, endMark] = markers;
  const start = text.indexOf(startMark);
  const end = text.indexOf(endMark);
  if (start === -1 || end < start) throw new Error(`${file} has no ${startMark} ... ${endMark} section`);
  fs.writeFileSync(file, `${text.slice(0, start + startMark.length)}\n${markdown}\n${text.slice(end)}`);
}
