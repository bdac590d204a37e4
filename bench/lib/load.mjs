// One measured run: autocannon against one target and one case, with the
// argument rotating on every request and every response checked.
import autocannon from 'autocannon';
import { cpuDelta, cpuSeconds, sampleResidentPeak } from './procfs.mjs';

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * Runs autocannon for `seconds` against `url` with `requests` (one per
 * argument value, each with the exact body the target answered in the
 * check before the run). Each connection takes the next argument on every
 * request, so the rows rotate; every response is compared byte for byte
 * with the expected body. With `measure`, also samples CPU (server
 * processes and database backends), peak RSS (server processes) and, when
 * `measure.statements` reads the target's count of SQL statements, the
 * statements per request.
 * With `check: 'data'` an answer need only be a 200 with data and no errors
 * (for reads while ingest changes the rows).
 */
export async function runLoad({ url, requests, connections, seconds, measure, check = 'exact' }) {
  let next = 0;
  let checked = 0;
  let failures = 0;
  let firstFailure;
  const latencies = [];
  const appPidsBefore = measure ? cpuSeconds(measure.appPids()) : undefined;
  // no dbPids: the database's CPU is not this load's alone (targets loaded side by side)
  const dbBefore = measure?.dbPids ? cpuSeconds(await measure.dbPids()) : undefined;
  const statementsBefore = measure?.statements ? await measure.statements() : undefined;
  const rss = measure ? sampleResidentPeak(measure.appPids) : undefined;
  const started = process.hrtime.bigint();

  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        setupRequest: (request, context) => {
          const chosen = requests[next++ % requests.length];
          context.expected = chosen.expected;
          return { ...request, method: 'POST', path: chosen.path, headers: chosen.headers, body: chosen.body };
        },
        onResponse: (status, body, context) => {
          checked += 1;
          if (status === 200 && (check === 'data' ? body.startsWith('{"data":{') && !body.includes('"errors"') : body === context.expected)) return;
          failures += 1;
          firstFailure ??= `HTTP ${status}: ${String(body).slice(0, 300)}`;
        },
      },
    ],
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode === 200) latencies.push(responseTime);
  });
  const result = await instance;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;

  latencies.sort((a, b) => a - b);
  const completed = latencies.length;
  const out = {
    requestsPerSecond: completed / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    completed,
    checked,
    failures,
    firstFailure,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  if (!measure) return out;
  const appCpu = cpuDelta(appPidsBefore, cpuSeconds(measure.appPids()));
  const dbCpu = dbBefore === undefined ? Number.NaN : cpuDelta(dbBefore, cpuSeconds(await measure.dbPids()));
  const statements = statementsBefore === undefined ? Number.NaN : (await measure.statements()) - statementsBefore;
  return {
    ...out,
    appCpuPerRequestMs: completed > 0 ? (appCpu * 1000) / completed : Number.NaN,
    dbCpuPerRequestMs: completed > 0 ? (dbCpu * 1000) / completed : Number.NaN,
    statementsPerRequest: completed > 0 ? statements / completed : Number.NaN,
    peakRssBytes: rss.stop(),
  };
}
