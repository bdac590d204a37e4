// What writing the per-key request log costs per row, in one process: the
// repository's insert (src/features/request-log/request-log.repository.ts) of
// `batches` batches of `rows` requests, as the writer's flush makes them, on
// a fresh SQLite file or an existing, empty PostgreSQL database; prints CPU
// per row (the process's, and on PostgreSQL the database backends' from
// /proc), wall time per row and the longest batch. After `npm run build`:
//   node bench/request-log-write.mjs sqlite [rows] [batches]
//   node bench/request-log-write.mjs postgres://root@127.0.0.1:5432/DB [rows] [batches]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { cpuDelta, cpuSeconds } from './lib/procfs.mjs';

const DIST = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'dist');
const { openStore } = await import(path.join(DIST, 'db/open-store.js'));
const { migrateToLatest } = await import(path.join(DIST, 'db/migrate.js'));
const { createRequestLogRepository } = await import(path.join(DIST, 'features/request-log/request-log.repository.js'));

const [where = 'sqlite', rowsArg = '300', batchesArg = '100'] = process.argv.slice(2);
const rows = Number(rowsArg);
const batches = Number(batchesArg);
const target = where === 'sqlite' ? { dialect: 'sqlite', file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'request-log-write-')), 'db.sqlite') } : { dialect: 'postgres', url: where };
const store = await openStore(target);
await migrateToLatest(store);
const now = new Date().toISOString();
const stamp = Date.now();
// a company and a key for the rows' foreign key
await store.db.insertInto('companies').values({ uuid: crypto.randomUUID(), slug: `bench-${stamp}`, name: 'bench', created_at: now }).execute();
const company = await store.db.selectFrom('companies').select('id').where('slug', '=', `bench-${stamp}`).executeTakeFirstOrThrow();
await store.db.insertInto('api_keys').values({ uuid: crypto.randomUUID(), company_id: company.id, label: 'bench', prefix: `ngk_${stamp}`, secret_hash: `bench-${stamp}`, scope: 'read', created_at: now }).execute();
const key = await store.db.selectFrom('api_keys').select('id').where('prefix', '=', `ngk_${stamp}`).executeTakeFirstOrThrow();
const repository = createRequestLogRepository(store);
await repository.preparePartitions(Date.now() - 86_400_000, Date.now() + 2 * 86_400_000);

// request ids as the server makes them (a UUID each), the rest as a script's requests repeat them
const request = () => ({ at: Date.now(), keyId: key.id, requestId: crypto.randomUUID(), method: 'POST', path: '/api/v1/graphql', operationName: 'VirtualDevice', rootFields: ['virtualDevice'], status: 200, errorCodes: [], cost: 1, durationMs: 1.23, statements: 1, clientAddress: '127.0.0.1', userAgent: 'autocannon' });
const batch = () => Array.from({ length: rows }, request);
for (let i = 0; i < 10; i++) await repository.insert(batch());

const prepared = Array.from({ length: batches }, batch);
// PostgreSQL: the CPU of this database's backends (the store's pools), from /proc
const backends = async () =>
  target.dialect === 'postgres' ? (await store.db.selectFrom('pg_stat_activity').select('pid').where('datname', '=', new URL(where).pathname.slice(1)).execute()).map((row) => Number(row.pid)) : [];
const db0 = cpuSeconds(await backends());
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
let longest = 0;
for (const requests of prepared) {
  const started = performance.now();
  await repository.insert(requests);
  longest = Math.max(longest, performance.now() - started);
}
const cpu = process.cpuUsage(cpu0);
const dbCpu = cpuDelta(db0, cpuSeconds(await backends()));
const n = rows * batches;
const database = target.dialect === 'postgres' ? `, database CPU ${((dbCpu * 1e6) / n).toFixed(2)} µs/row` : '';
console.log(`${target.dialect}: ${batches} batches of ${rows}: CPU ${((cpu.user + cpu.system) / n).toFixed(2)} µs/row${database}, wall ${(((performance.now() - wall0) * 1000) / n).toFixed(2)} µs/row, longest batch ${longest.toFixed(1)} ms`);
await store.close();
