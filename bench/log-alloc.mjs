#!/usr/bin/env node
// Bytes of young-generation garbage per request line of netgraph's process
// log (`logRequest()` into createProcessLog's batch, written to /dev/null):
// what a line leaves for the garbage collector, which costs a server more in
// cache misses than its instructions do (docs/benchmarks.md). Needs a young
// generation large enough to take every measured line without a collection:
// Usage: npm run build && node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 bench/log-alloc.mjs [lines]
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { createProcessLog, logRequest } = await import(path.join(REPO, 'dist', 'observability', 'log.js'));
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128');

const lines = Number(process.argv[2] ?? 2000);
const log = createProcessLog('info', fs.openSync('/dev/null', 'w'));
// the fields a request's line has, made beforehand: only the logging is measured
const fields = Array.from({ length: lines }, (_, i) => ({
  requestId: crypto.randomUUID(), method: 'POST', path: '/api/v1/graphql', clientAddress: '127.0.0.1', status: 200,
  durationMs: Math.round(i * 7.31) / 100, keyId: 'a0583410-d632-48bf-8e15-ff4f94acb4c5', company: 'acme', operationName: 'HardwareDevice', sqlStatements: 1,
}));
const youngBytes = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_used_size;
const turn = () => new Promise((resolve) => setImmediate(resolve));
// warm up: the optimizing compiler has the logging code before it is measured
for (let round = 0; round < 30; round++) {
  for (const line of fields) logRequest(log.logger, line);
  await turn();
}
globalThis.gc();
const before = youngBytes();
for (const line of fields) logRequest(log.logger, line);
const logged = youngBytes();
await turn();
const handedOver = youngBytes();
await log.close();
if (handedOver < before) throw new Error('a garbage collection ran during the measurement: give a larger --min-semi-space-size');
console.log(`${lines} lines: ${((logged - before) / lines).toFixed(0)} bytes of young-generation garbage per line logged, ${((handedOver - before) / lines).toFixed(0)} with the hand-over to the destination`);
