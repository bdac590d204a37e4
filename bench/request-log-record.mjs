#!/usr/bin/env node
// What the per-key request log costs on a request's path, in one process:
// ns per request of making a request's entry and recording it
// (src/http/request-log.ts's keyRequest, then the writer's record, which
// gathers it into its compact row: request-log.repository.ts), with a flush
// (to nowhere) every 5,000 requests as a loaded worker's timer makes them,
// for each build given; and the floor, the same loop without the log (the
// request's own facts made, nothing recorded). The requests are one key's
// point lookups as the benchmark's load sends them: a new UUID request id,
// the same root field, User-Agent and address each time; --keys spreads
// them over that many keys in turn (the benchmark's load has one a company).
// Builds take turns in each of --rounds rounds; the median per build is
// printed.
// After `npm run build`:
//   node bench/request-log-record.mjs [--keys N] [--rounds N] [--requests N] [--json] [name=DIR ...]
//   (default: this checkout, current=.; DIR holds a built dist/, such as a
//   worktree of an earlier commit)
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_DIR } from './lib/targets.mjs';
import { median } from './lib/report.mjs';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { keys: { type: 'string', default: '1' }, rounds: { type: 'string', default: '9' }, requests: { type: 'string', default: '200000' }, json: { type: 'boolean', default: false } },
});
const rounds = Number(options.rounds);
const count = Number(options.requests);
const keys = Number(options.keys);
if (!(rounds > 0 && count >= 5_000 && Number.isSafeInteger(keys) && keys > 0)) {
  console.error('usage: node bench/request-log-record.mjs [--keys N] [--rounds N] [--requests N (at least 5000)] [--json] [name=DIR ...]');
  process.exit(2);
}
const FLUSH_EVERY = 5_000;

async function loadBuild(spec) {
  const [name, dir = '.'] = spec.split('=');
  const dist = path.resolve(REPO_DIR, dir, 'dist');
  const { createRequestSets } = await import(path.join(dist, 'features/request-log/request-log.repository.js'));
  const { keyRequest } = await import(path.join(dist, 'http/request-log.js'));
  const { createRequestLogWriter } = await import(path.join(dist, 'features/request-log/request-log.writer.js'));
  let written = 0;
  const writer = createRequestLogWriter(async (rows) => void (written += rows.length), createRequestSets());
  return { name, keyRequest, writer, written: () => written };
}

const builds = await Promise.all((positionals.length > 0 ? positionals : ['current=.']).map(loadBuild));
const ids = Array.from({ length: count }, () => randomUUID());
const rootFields = Object.freeze(['virtualDevice']);
const callers = Array.from({ length: keys }, (_, k) => ({ keyId: 7 + k, keyUuid: `00000000-0000-4000-8000-${String(7 + k).padStart(12, '0')}`, companySlug: `bench-${k}` }));
let sink = 0;

/** One request's context and facts as the GraphQL endpoint has them when it answers. */
function facts(i) {
  const context = { operationName: 'Device', statements: i % 5 === 0 ? 1 : 0, clientAddress: '127.0.0.1', caller: callers[i % keys], rootFields, cost: 1 };
  // durations in hundredths of a ms, as the endpoint's
  const elapsedMs = 0.3 + (i % 1000) / 400;
  // a header's value is a new string each request
  const userAgent = `autocannon/${7 + (i % 1)}.15.0`;
  return { context, userAgent, facts: { requestId: ids[i], method: 'POST', path: '/api/v1/graphql', clientAddress: context.clientAddress, status: 200, elapsedMs } };
}

async function run(build) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const request = facts(i);
    if (build === undefined) {
      sink += request.facts.elapsedMs + request.userAgent.length + request.context.statements;
      continue;
    }
    const entry = build.keyRequest(request.facts, request.facts.requestId, request.userAgent, request.context);
    if (entry !== undefined) build.writer.record(entry);
    if (i % FLUSH_EVERY === FLUSH_EVERY - 1) await build.writer.flush();
  }
  if (build !== undefined) await build.writer.flush();
  return Number(process.hrtime.bigint() - started) / count;
}

const runs = [undefined, ...builds];
const times = new Map(runs.map((build) => [build?.name ?? 'floor', []]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? runs : [...runs].reverse();
  for (const build of order) times.get(build?.name ?? 'floor').push(await run(build));
}
const floor = median(times.get('floor'));
const result = builds.map((build) => ({ name: build.name, nsPerRequest: median(times.get(build.name)), logNsPerRequest: median(times.get(build.name)) - floor, written: build.written() }));
if (options.json) console.log(JSON.stringify({ rounds, requests: count, keys, floorNsPerRequest: floor, builds: result, sink: sink > 0 }));
else {
  console.log(`${rounds} rounds of ${count.toLocaleString('en')} requests over ${keys} key(s); floor (no log) ${floor.toFixed(0)} ns a request`);
  for (const build of result) console.log(`${build.name}: ${build.nsPerRequest.toFixed(0)} ns a request, the log's ${build.logNsPerRequest.toFixed(0)} ns (${build.written.toLocaleString('en')} compact rows written)`);
}
