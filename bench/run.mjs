#!/usr/bin/env node
// The benchmark runner: generates the data, loads it into PostgreSQL and
// SQLite with `netgraph import`, starts netgraph (both stores), PostGraphile 4
// and the raw-SQL floor with the same number of workers, checks every answer
// against the data, then drives each case with autocannon, targets alternated,
// and reports medians and ratios to the floor. See bench/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { CASES, indexDataset, normalize } from './lib/cases.mjs';
import { READS_UNDER_INGEST, fleetCompanies, measureIngest } from './lib/ingest-case.mjs';
import { INGEST_DOCS_END, INGEST_DOCS_START, ingestFailed, ingestMarkdown, ingestTables } from './lib/ingest-report.mjs';
import { countDataset, generateBenchDataset } from './lib/dataset.mjs';
import { runLoad } from './lib/load.mjs';
import { USAGE, parseOptions } from './lib/options.mjs';
import { machineFacts } from './lib/procfs.mjs';
import { detailTable, headlineTable, logLevelTable, requestLogTable, resultsMarkdown, summarize, writeDocsSection } from './lib/report.mjs';
import { REPO_DIR, TARGETS, requestFor, runNetgraph, runsCase, startTarget } from './lib/targets.mjs';

const log = (line) => console.error(`bench: ${line}`);

/** What to undo, newest first: servers, the database, the temp folder. Also run on Ctrl-C. */
const cleanups = [];

let cleaning;

/** Runs the cleanups once; a second caller (Ctrl-C during the normal end) waits for the same run. */
function cleanUp() {
  cleaning ??= (async () => {
    for (let cleanup = cleanups.shift(); cleanup !== undefined; cleanup = cleanups.shift()) {
      await cleanup().catch((error) => log(`cleanup: ${error.message}`));
    }
  })();
  return cleaning;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopping = true;
    log(`${signal}: stopping the servers and dropping the database`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function withAdmin(adminUrl, fn) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the benchmark database afresh and returns its URL. */
async function createDatabase(options) {
  await withAdmin(options.adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${options.database} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${options.database}`);
  });
  const url = new URL(options.adminUrl);
  url.pathname = `/${options.database}`;
  return url.toString();
}

/** Migrates and imports the data file into one store, and creates a read key per company of `companies`, an ingest key per company of `ingesting`. */
async function loadStore(store, databaseUrl, dataFile, companies, ingesting) {
  const env = { DATABASE_URL: databaseUrl };
  await runNetgraph(['migrate'], env);
  const started = performance.now();
  const imported = JSON.parse(await runNetgraph(['import', dataFile, '--json'], env));
  const wallSeconds = (performance.now() - started) / 1000;
  log(`${store}: imported in ${imported.seconds.toFixed(1)} s (${wallSeconds.toFixed(1)} s with reading and validating the file)`);
  const keys = new Map();
  const ingestKeys = new Map();
  const queue = [...companies.map((slug) => [slug, 'read', keys]), ...ingesting.map((slug) => [slug, 'ingest', ingestKeys])];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [slug, scope, into] = next;
      const created = JSON.parse(await runNetgraph(['keys', 'create', '--company', slug, '--label', 'bench', '--scope', scope, '--json'], env));
      into.set(slug, created.key);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return { keys, ingestKeys, import: { seconds: imported.seconds, wallSeconds } };
}

async function post(target, request) {
  const response = await fetch(`${target.url}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  return { status: response.status, text: await response.text() };
}

/**
 * Asks every target every argument of the case once and checks the answer
 * against the data. Returns, per target, the requests with the exact body
 * each must answer during the load; throws naming the first wrong answer.
 */
async function checkCase(kase, targets, args, index) {
  const prepared = {};
  for (const target of targets) {
    prepared[target.name] = [];
    for (const arg of args) {
      const request = requestFor(target, kase, arg);
      const { status, text } = await post(target, request);
      const body = status === 200 ? JSON.parse(text) : undefined;
      const actual = body?.data && !body.errors ? normalize(kase, target.kind, body.data) : undefined;
      if (!isDeepStrictEqual(actual, kase.expected(arg, index))) {
        throw new Error(`${target.label} answered ${kase.id}(${arg.value}) wrongly (HTTP ${status}): ${text.slice(0, 500)}`);
      }
      prepared[target.name].push({ ...request, expected: text });
    }
  }
  return prepared;
}

/** Backend pids of the benchmark database, other than the runner's own connection. */
function createDbPidReader(client, database) {
  return async () =>
    (
      await client.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
        [database],
      )
    ).rows.map((r) => r.pid);
}

/** The SQL statements a netgraph target has run, from its /metrics (summed over its workers). */
async function statementsRun(target) {
  const text = await (await fetch(`${target.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('netgraph_db_statements_total '));
  if (line === undefined) throw new Error(`${target.name}'s /metrics has no netgraph_db_statements_total`);
  return Number(line.split(' ')[1]);
}

async function measureCase(kase, targets, prepared, options, dbPids) {
  const load = (target, seconds, measure) =>
    runLoad({ url: target.url, requests: prepared[target.name], connections: options.connections, seconds, measure });
  // Where LOG_LEVEL=info is compared with warn, or the request log on with off, netgraph's targets are new
  // processes in every round: one process of a build can settle a few percent above or below another of the same
  // build for its whole life (what V8's optimizing compiler made of it), so one process each would compare the
  // processes, not the settings. Such a target runs only for its own turn, from the first round on (started, warmed
  // up, measured, stopped, also in the last round; they are started again after it, unloaded, for the next case's
  // checks): processes warmed up or measured side by side hold every pool's connections at once, and three netgraph
  // targets on PostgreSQL with the floor passed PostgreSQL's default max_connections of 100, so the first target's
  // first round got 503s, and so did the last target of the last round while the round's others stayed up.
  const renewed = new Set(targets.some((t) => t.logLevel === 'info' || t.requestLogOf !== undefined) ? targets.filter((t) => t.kind === 'netgraph') : []);
  if (options.warmup > 0) {
    for (const target of targets) if (!renewed.has(target)) await load(target, options.warmup, undefined);
  }
  for (const target of renewed) await target.stop();
  if (options.sideBySide) return measureSideBySide(kase, targets, renewed, load, options);
  const rounds = [];
  for (let r = 0; r < options.rounds; r++) {
    // rotated every other round and reversed in between, so no target always runs first or last, or right after the same one
    const rotated = targets.map((_, i) => targets[(i + Math.floor(r / 2)) % targets.length]);
    const order = r % 2 === 0 ? rotated : rotated.reverse();
    const round = {};
    for (const target of order) {
      if (renewed.has(target)) {
        log(`${kase.id} round ${r + 1}/${options.rounds}: starting ${target.name} anew`);
        await target.restart();
        if (options.warmup > 0) await load(target, options.warmup, undefined);
      }
      const measure = {
        appPids: target.pids,
        dbPids: target.store === 'postgres' ? dbPids : async () => [],
        statements: target.kind === 'netgraph' ? () => statementsRun(target) : undefined,
      };
      const result = await load(target, options.duration, measure);
      round[target.name] = result;
      log(
        `${kase.id} round ${r + 1}/${options.rounds} ${target.name}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50.toFixed(2)} ms` +
          (Number.isFinite(result.statementsPerRequest) ? `, ${result.statementsPerRequest.toFixed(2)} statements/req` : '') +
          (result.failures + result.errors > 0 ? `, ${result.failures} wrong answers, ${result.errors} errors: ${result.firstFailure ?? ''}` : ''),
      );
      if (renewed.has(target)) await target.stop();
    }
    rounds.push(round);
  }
  for (const target of renewed) await target.restart();
  return rounds;
}

/**
 * --side-by-side: each round loads every target at once, each with its own
 * connections, for the same seconds. Taken in turns, two identical servers
 * differed by up to 40% on a shared machine whose speed drifts from one
 * minute to the next (docs/benchmarks.md, the request log); loaded at once,
 * every target meets the same moments. The renewed targets are started one
 * after another (their pools connecting at once got 503s), warmed up
 * together, measured together and stopped. The targets then compete for the
 * same cores, so their throughputs read as ratios to each other, not as
 * what each serves alone; the database's CPU is shared by them, so it is not
 * given per target (the server's is).
 */
async function measureSideBySide(kase, targets, renewed, load, options) {
  const postgresNetgraphs = targets.filter((t) => t.kind === 'netgraph' && t.store === 'postgres').length;
  if (postgresNetgraphs > 2) throw new Error(`--side-by-side loads ${postgresNetgraphs} netgraph targets on PostgreSQL at once: more connections than PostgreSQL's default max_connections (100) allows; name at most two`);
  const rounds = [];
  for (let r = 0; r < options.rounds; r++) {
    for (const target of renewed) {
      log(`${kase.id} round ${r + 1}/${options.rounds}: starting ${target.name} anew`);
      await target.restart();
    }
    if (options.warmup > 0 && renewed.size > 0) await Promise.all([...renewed].map((target) => load(target, options.warmup, undefined)));
    const results = await Promise.all(
      targets.map((target) =>
        load(target, options.duration, {
          appPids: target.pids,
          dbPids: target.store === 'postgres' ? undefined : async () => [],
          statements: target.kind === 'netgraph' ? () => statementsRun(target) : undefined,
        }),
      ),
    );
    const round = {};
    targets.forEach((target, i) => {
      const result = results[i];
      round[target.name] = result;
      log(
        `${kase.id} round ${r + 1}/${options.rounds} ${target.name} (side by side): ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50.toFixed(2)} ms, server CPU ${(result.appCpuPerRequestMs * 1000).toFixed(1)} µs/req` +
          (result.failures + result.errors > 0 ? `, ${result.failures} wrong answers, ${result.errors} errors: ${result.firstFailure ?? ''}` : ''),
      );
    });
    for (const target of renewed) await target.stop();
    rounds.push(round);
  }
  for (const target of renewed) await target.restart();
  return rounds;
}

async function machine(options, dbClient) {
  const facts = machineFacts();
  const version = (await dbClient.query('SHOW server_version')).rows[0].server_version;
  return {
    cores: os.cpus().length,
    cpuModel: facts.cpuModel,
    memoryBytes: facts.memoryBytes,
    node: process.versions.node,
    postgres: `PostgreSQL ${version}`,
    loadBefore: facts.loadAverage,
    note: options.note,
  };
}

async function run(options) {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-bench-'));
  if (!options.keep) cleanups.push(async () => fs.rmSync(temp, { recursive: true, force: true }));
  try {
    log(`generating ${options.scaleText} (seed ${options.scale.seed}) in ${temp}`);
    const document = generateBenchDataset(options.scale);
    const dataFile = path.join(temp, 'data.json');
    fs.writeFileSync(dataFile, JSON.stringify(document));
    const index = indexDataset(document);
    const argsByCase = new Map(options.cases.map((c) => [c.id, c.args(index)]));
    const companies = [...new Set([...argsByCase.values()].flat().map((a) => a.company))];

    const postgresUrl = await createDatabase(options);
    if (!options.keep) cleanups.push(() => withAdmin(options.adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${options.database} WITH (FORCE)`)));
    const urls = { postgres: postgresUrl, sqlite: `sqlite:${path.join(temp, 'netgraph.db')}` };
    const stores = [...new Set(options.targets.filter((t) => TARGETS[t].kind === 'netgraph').map((t) => TARGETS[t].store))];
    if (!stores.includes('postgres')) stores.unshift('postgres');
    const loaded = {};
    const ingesting = options.ingest ? fleetCompanies(document) : [];
    for (const store of stores) loaded[store] = await loadStore(store, urls[store], dataFile, companies, ingesting);

    const dbClient = new pg.Client({ connectionString: postgresUrl });
    await dbClient.connect();
    cleanups.unshift(() => dbClient.end());
    await dbClient.query('VACUUM ANALYZE');
    const facts = await machine(options, dbClient);

    const targets = [];
    for (const name of options.cases.length > 0 ? options.targets : []) {
      const { kind, store } = TARGETS[name];
      const first = options.cases[0];
      const firstArg = argsByCase.get(first.id)[0];
      const target = await startTarget({
        name,
        databaseUrl: urls[store],
        workers: options.workers,
        logDir: temp,
        keys: kind === 'netgraph' ? loaded[store].keys : undefined,
        probe: async (t) => (await post(t, requestFor(t, first, firstArg))).status === 200,
      });
      cleanups.unshift(() => target.stop());
      targets.push(target);
      log(`${name} is up at ${target.url} (${target.pids().length} processes)`);
    }

    const dbPids = createDbPidReader(dbClient, options.database);
    const cases = [];
    const preparedByCase = new Map();
    for (const kase of options.cases) {
      const args = argsByCase.get(kase.id);
      if (args.length === 0) continue;
      const caseTargets = targets.filter((target) => runsCase(target, kase));
      const prepared = await checkCase(kase, caseTargets, args, index);
      preparedByCase.set(kase.id, prepared);
      log(`${kase.id}: every target answered all ${args.length} argument values correctly; measuring`);
      const rounds = await measureCase(kase, caseTargets, prepared, options, dbPids);
      const responseBytes = Object.fromEntries(
        caseTargets.map((t) => [t.name, prepared[t.name].reduce((sum, r) => sum + Buffer.byteLength(r.expected), 0) / args.length]),
      );
      cases.push({ id: kase.id, title: kase.title, arguments: args.length, rounds, responseBytes, summary: summarize(rounds, options.targets) });
    }
    let ingest;
    if (options.ingest) {
      // the read targets (LOG_LEVEL=warn) make room for the ingest case's own (info)
      for (const target of targets) await target.stop();
      const ingestStores = stores.filter((store) => options.targets.includes(`netgraph-${store}`));
      const reads = new Map(ingestStores.map((store) => [
        store,
        new Map(READS_UNDER_INGEST.filter((id) => preparedByCase.has(id)).map((id) => [id, preparedByCase.get(id)[`netgraph-${store}`]])),
      ]));
      ingest = await measureIngest({
        document,
        stores: ingestStores.map((name) => ({ name, url: urls[name], keys: loaded[name].ingestKeys })),
        options, temp, dbPids, cleanups, reads, log,
      });
    }

    return {
      finishedAt: new Date().toISOString(),
      options: { ...options, cases: options.cases.map((c) => c.id), adminUrl: undefined },
      machine: { ...facts, loadAfter: machineFacts().loadAverage },
      dataset: countDataset(document),
      imports: Object.fromEntries(Object.entries(loaded).map(([store, l]) => [store, l.import])),
      targets: options.targets,
      labels: Object.fromEntries(options.targets.map((t) => [t, TARGETS[t].label])),
      stores: Object.fromEntries(options.targets.map((t) => [t, TARGETS[t].store])),
      cases,
      ingest,
    };
  } finally {
    await cleanUp();
    if (options.keep) log(`kept ${temp} and database ${options.database}`);
  }
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`bench: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  if (!fs.existsSync(path.join(REPO_DIR, 'dist', 'tools', 'demo', 'dataset.js'))) {
    console.error('bench: dist/ is missing; run "npm run build" first (npm run bench does).');
    return 2;
  }
  if (options.report) return report(JSON.parse(fs.readFileSync(options.report, 'utf8')), options.docs);
  const started = new Date().toISOString();
  const results = { ...(await run(options)), startedAt: started };
  const resultsDir = path.join(REPO_DIR, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  // latest.json is the last full read suite; a documented run of fewer read cases keeps it
  const documented = results.cases.length === CASES.length ? 'latest.json' : 'latest-ingest.json';
  const file = path.join(resultsDir, options.quick ? 'quick.json.tmp' : options.docs ? documented : 'custom.json.tmp');
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`raw results in ${path.relative(REPO_DIR, file)}`);
  return report(results, options.docs);
}

/** Prints the tables (summaries recomputed from the rounds) and, when asked and valid, writes them into the docs. */
function report(results, docs) {
  for (const c of results.cases) c.summary = summarize(c.rounds, results.targets);
  const failed = results.cases.some((c) => Object.values(c.summary).some((s) => s.failures > 0)) || (results.ingest !== undefined && ingestFailed(results.ingest));
  if (results.cases.length > 0) console.log(`\n${headlineTable(results)}\n\n${logLevelTable(results) ?? ''}\n\n${requestLogTable(results) ?? ''}\n\n${detailTable(results)}\n`);
  if (results.ingest) console.log(`\n${ingestTables(results.ingest).filter(Boolean).join('\n\n')}\n`);
  const docsFile = path.join(REPO_DIR, 'docs', 'benchmarks.md');
  // each section is rewritten only by a run that measured it
  if (docs && !failed && results.options.cases.length === CASES.length) {
    writeDocsSection(docsFile, resultsMarkdown(results));
    log('wrote the read results into docs/benchmarks.md');
  }
  if (docs && !failed && results.ingest) {
    writeDocsSection(docsFile, ingestMarkdown(results), [INGEST_DOCS_START, INGEST_DOCS_END]);
    log('wrote the ingest results into docs/benchmarks.md');
  }
  if (failed) log('some responses were wrong or failed during the load: the figures above are not valid');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    // after Ctrl-C the servers are gone under the run's feet: the signal handler exits
    if (stopping) return;
    console.error(`bench: ${error.stack ?? error}`);
    process.exit(1);
  },
);
