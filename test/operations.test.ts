import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../src/tools/demo/dataset.js';
import { openSqliteStore } from '../src/db/sqlite.js';
import { generateKey } from '../src/features/api-key/api-key.token.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, postReports, report } from './helpers/reports.js';
import { freePort, startServerProcess, startTcpProxy } from './helpers/processes.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { StoreKind, TestDatabase } from './helpers/stores.js';

const QUERY = '{ companyBySlug(slug: "acme") { slug } }';

async function post(url: string, key: string, query = QUERY, init: RequestInit = {}) {
  const res = await fetch(`${url}/api/v1/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    ...init,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** Asserts an answer is a 503 SERVICE_UNAVAILABLE with Retry-After and the documented body, its message `message`. */
function expectServiceUnavailable(answer: { status: number; headers: Headers; body: unknown }, message: unknown): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(answer.body).toEqual({ errors: [{ message, extensions: { code: 'SERVICE_UNAVAILABLE' } }], data: null });
}

/** Asserts a GraphQL request with `key` is refused as the database being unavailable: 503, Retry-After, the documented body. */
async function expectDatabaseUnavailable(url: string, key: string): Promise<void> {
  expectServiceUnavailable(await post(url, key), expect.stringMatching(/database is unavailable/));
}

/** Posts with `key` every 100 ms, up to 5 s, until a request answers 200; returns the last status. */
async function statusOnceBack(url: string, key: string): Promise<number> {
  let back = 0;
  for (let i = 0; i < 50 && back !== 200; i++) {
    back = (await post(url, key)).status;
    if (back !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  return back;
}

/** POSTs a query over a given keep-alive agent; resolves with the status once the body is read. */
function postOver(agent: http.Agent, url: string, key: string, query: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query });
    const request = http.request(
      `${url}/api/v1/graphql`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** POSTs a query on a connection of its own (node:cluster hands each connection to the next worker); resolves with the status. */
function postOnNewConnection(url: string, key: string, query: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: false });
  return postOver(agent, url, key, query).finally(() => agent.destroy());
}

/** GETs a URL on a connection of its own; resolves with the body of a 200, rejects otherwise. */
function getOnNewConnection(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => (response.statusCode === 200 ? resolve(text) : reject(new Error(`${response.statusCode}: ${text}`))));
      })
      .on('error', reject);
  });
}

/** The sum of every series of a counter family in a Prometheus text exposition. */
function sumOfSeries(text: string, family: string): number {
  const values = [...text.matchAll(new RegExp(`^${family}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))].map((m) => Number(m[1]));
  return values.reduce((a, b) => a + b, 0);
}

/** A migrated, loaded database with a key, for tests that run servers as separate processes. */
async function preparedDatabase(kind: StoreKind, data = createFixture()): Promise<{ database: TestDatabase; key: string }> {
  const app = await startTestApp(kind, { data });
  const key = await app.createKey('acme', 'processes');
  await app.server.close();
  return { database: app.database, key };
}

describe.each(storeKinds())('operating netgraph on %s', (kind) => {
  describe('metrics', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture() });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('serves Prometheus text to this machine: requests by operation and status, latency, pool, process', async () => {
      await app.graphql('query DeviceList { __typename }');
      await app.graphql('{ nope }');
      const res = await app.request('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.text).toMatch(/netgraph_http_requests_total\{route="\/api\/v1\/graphql",operation="DeviceList",status="200"\} 1/);
      expect(res.text).toMatch(/netgraph_http_requests_total\{route="\/api\/v1\/graphql",operation="-",status="422"\} 1/);
      expect(res.text).toContain('netgraph_http_request_duration_seconds_bucket{le="0.005",route="/api/v1/graphql"}');
      expect(res.text).toMatch(/netgraph_db_pool_connections_in_use \d+/);
      expect(res.text).toMatch(/netgraph_db_pool_waiting_requests \d+/);
      expect(res.text).toMatch(/netgraph_db_statements_total \d+/);
      expect(res.text).toContain('netgraph_process_resident_memory_bytes');
      expect(res.text).toContain('# HELP netgraph_rate_limited_total');
    });

    it('counts reports accepted, duplicates and rejected by code, and the ingest lag of the accepted', async () => {
      const key = await createScopedKey(app, 'ingest');
      // 100 s old: between the lag buckets of 60 and 300 s, far from either edge
      const observedAt = new Date(Date.now() - 100_000).toISOString();
      const first = report(SERIALS.acmeAp, observedAt);
      const batch = [first, report(SERIALS.acmeSwitch, observedAt), report('NOPE-0000-0000', observedAt), { reportId: 'not a report' }];
      const res = await postReports(app, key, batch);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ accepted: 2, duplicates: 0 });
      expect((await postReports(app, key, [first])).body).toMatchObject({ accepted: 0, duplicates: 1 });
      const text = (await app.request('/metrics')).text;
      expect(text).toMatch(/^netgraph_reports_accepted_total 2$/m);
      expect(text).toMatch(/^netgraph_reports_duplicates_total 1$/m);
      expect(text).toMatch(/^netgraph_reports_rejected_total\{code="BAD_USER_INPUT"\} 1$/m);
      expect(text).toMatch(/^netgraph_reports_rejected_total\{code="UNAUTHORIZED"\} 1$/m);
      expect(text).toMatch(/^netgraph_report_ingest_lag_seconds_bucket\{le="60"\} 0$/m);
      expect(text).toMatch(/^netgraph_report_ingest_lag_seconds_bucket\{le="300"\} 2$/m);
      expect(text).toMatch(/^netgraph_report_ingest_lag_seconds_count 2$/m);
    });

    it('moves to its own port with METRICS_PORT, and leaves the API port', async () => {
      const metricsPort = await freePort();
      const other = await startTestApp(kind, { env: { METRICS_PORT: String(metricsPort) } });
      try {
        expect((await other.request('/metrics')).status).toBe(404);
        const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('netgraph_http_requests_total');
      } finally {
        await other.close();
      }
    });
  });

  it('answers /readyz 503 once it drains, so a load balancer stops sending it requests before it exits', async () => {
    const app = await startTestApp(kind);
    try {
      expect((await app.request('/readyz')).status).toBe(200);
      app.server.app.startDraining();
      const draining = await app.request('/readyz');
      expect(draining.status).toBe(503);
      expect(draining.body).toEqual({ status: 'unavailable' });
      expect(draining.headers.get('connection')).toBe('close');
    } finally {
      await app.close();
    }
  });

  it('writes one JSON log line per request with id, key id, company, operation, status, duration and statements', async () => {
    const { database, key } = await preparedDatabase(kind);
    const server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    try {
      const res = await fetch(`${server.url}/api/v1/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'log-check-1' },
        body: JSON.stringify({ query: 'query Mine { companyBySlug(slug: "acme") { slug } }' }),
      });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      const line = server.output().split('\n').find((l) => l.includes('"log-check-1"'));
      expect(line, server.output()).toBeDefined();
      expect(JSON.parse(line as string)).toMatchObject({
        level: 30,
        msg: 'request',
        requestId: 'log-check-1',
        method: 'POST',
        path: '/api/v1/graphql',
        status: 200,
        durationMs: expect.any(Number),
        keyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        company: 'acme',
        operationName: 'Mine',
        sqlStatements: 2,
        clientAddress: '127.0.0.1',
      });
    } finally {
      await server.stop();
      await database.drop();
    }
  });

  describe('asynchronous request log', () => {
    /** Sends `count` requests, 8 at a time, each with the X-Request-Id `<prefix>-<i>`; all must answer 200. */
    async function sendTagged(url: string, key: string, prefix: string, count: number): Promise<void> {
      const send = async (i: number) => {
        const res = await fetch(`${url}/api/v1/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': `${prefix}-${i}` },
          body: JSON.stringify({ query: QUERY }),
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      };
      for (let i = 0; i < count; i += 8) await Promise.all(Array.from({ length: Math.min(8, count - i) }, (_, j) => send(i + j)));
    }

    /** The request ids of `prefix` missing from the output's request lines. */
    function missingLines(output: string, prefix: string, count: number): string[] {
      const logged = new Set(output.split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => (JSON.parse(l) as { requestId: string }).requestId));
      return Array.from({ length: count }, (_, i) => `${prefix}-${i}`).filter((id) => !logged.has(id));
    }

    it('at LOG_LEVEL=info, every request line is written by the time the process exits on SIGTERM', async () => {
      const { database, key } = await preparedDatabase(kind);
      const server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
      try {
        await sendTagged(server.url, key, 'term', 400);
        // the signal goes right after the last answer, with lines possibly still in the buffer
        expect(await server.stop('SIGTERM')).toBe(0);
        expect(missingLines(server.output(), 'term', 400)).toEqual([]);
      } finally {
        await server.stop('SIGKILL');
        await database.drop();
      }
    });

    it('a crash (an uncaught exception) loses no line logged before it, logs it at fatal and exits 1', async () => {
      const { database, key } = await preparedDatabase(kind);
      const crash = path.join(import.meta.dirname, 'helpers', 'crash-on-signal.mjs');
      const server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info', NODE_OPTIONS: `--import=${crash}` });
      try {
        await sendTagged(server.url, key, 'crash', 400);
        const exited = new Promise((resolve) => server.child.once('exit', resolve));
        server.child.kill('SIGUSR2');
        await new Promise((r) => setTimeout(r, 200));
        // its line is logged in the turn that crashes: only the crash handler's synchronous flush writes it
        await sendTagged(server.url, key, 'crash-last', 1).catch(() => undefined);
        expect(await exited).toBe(1);
        const output = server.output();
        expect(missingLines(output, 'crash', 400)).toEqual([]);
        expect(missingLines(output, 'crash-last', 1)).toEqual([]);
        const fatal = output.split('\n').find((l) => l.includes('uncaught exception; exiting'));
        expect(JSON.parse(fatal ?? '{}')).toMatchObject({ level: 60, err: { message: expect.stringContaining('crash on purpose') } });
      } finally {
        await server.stop('SIGKILL');
        await database.drop();
      }
    });
  });

  const PRETENURING_LOAD = [
    QUERY,
    `{ hardwareDevice(serialNumber: "${SERIALS.acmeAp}") { serialNumber deviceType deviceModel isConnectedToBackend } }`,
    '{ networksForCompany(companySlug: "acme") { UUID label isActive } }',
    '{ companyBySlug(slug: "acme") { slug name } }',
  ];
  // With these flags V8 prints a "pretenuring:" line for each allocation site it weighs, at collections while pretenuring is on.
  // stdbuf makes those lines (C's stdio, block-buffered into a pipe) reach the output as they are printed, in order with the log's.
  it.runIf(kind === 'sqlite')('turns off V8\'s allocation-site pretenuring in a server process, unless Node\'s own flags set it', async () => {
    const { database, key } = await preparedDatabase(kind);
    const launcher = ['stdbuf', '-oL', process.execPath, '--trace-pretenuring', '--trace-pretenuring-statistics'] as const;
    /**
     * The "pretenuring:" lines printed once the server listened and while it answered `requests` requests,
     * or fewer when `enough` lines came sooner (V8 weighs sites at collections, which come when they come).
     */
    const linesWhileServing = async (nodeFlags: string[], requests: number, enough = Infinity) => {
      const server = await startServerProcess({ DATABASE_URL: database.url }, [], 'listening', [...launcher, ...nodeFlags]);
      const lines = () => {
        const output = server.output();
        return output.slice(output.indexOf('listening')).split('\n').filter((l) => l.includes('pretenuring:')).length;
      };
      try {
        // several documents, 50 at a time: each a code path of its own, and requests alive at the collections V8 weighs sites at;
        // each document new (its root aliased), so that the parsed and compiled documents the caches keep outlive collections
        for (let i = 0; i < requests; i += 50) {
          if (i % 1_000 === 0 && i > 0 && lines() >= enough) break;
          await Promise.all(
            Array.from({ length: 50 }, async (_, j) => expect((await post(server.url, key, PRETENURING_LOAD[j % PRETENURING_LOAD.length]!.replace('{ ', `{ r${i + j}: `))).status).toBe(200)),
          );
        }
        expect(await server.stop('SIGTERM')).toBe(0);
        return lines();
      } finally {
        await server.stop('SIGKILL');
      }
    };
    try {
      expect(await linesWhileServing([], 4_000)).toBe(0);
      // the same server with the operator's --allocation-site-pretenuring: V8 weighs allocation sites while it serves
      expect(await linesWhileServing(['--allocation-site-pretenuring'], 20_000, 1)).toBeGreaterThan(0);
    } finally {
      await database.drop();
    }
    // two server processes and up to 24,000 requests: 28.8 s in a passing CI run on a slow 2-core machine, so the default 30 s was a coin toss
  }, 120_000);

  it('on SIGTERM under load, finishes every in-flight request and exits 0', async () => {
    const data = generateDataset({ companies: 1, networksPerCompany: 60, devicesPerNetwork: 15, clientsPerNetwork: 5, seed: 3, slugPrefix: 'load' });
    data.companies[0]!.slug = 'acme';
    const { database, key } = await preparedDatabase(kind, data);
    const server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    const heavy = '{ companyBySlug(slug: "acme") { networks { label virtualDevices { label hardwareDevice { serialNumber } } vlans { name } } } }';
    // one keep-alive socket per request, opened before the signal: every request below is in flight
    const agent = new http.Agent({ keepAlive: true, maxSockets: 24 });
    try {
      await Promise.all(Array.from({ length: 24 }, () => postOver(agent, server.url, key, heavy)));
      const inFlight = Array.from({ length: 24 }, () => postOver(agent, server.url, key, heavy).catch((error: unknown) => error));
      await new Promise((r) => setTimeout(r, 20));
      const exitCode = server.stop('SIGTERM');
      const results = await Promise.all(inFlight);
      for (const result of results) {
        expect(result instanceof Error ? String(result) : result).toBe(200);
      }
      expect(await exitCode).toBe(0);
      expect(server.output()).toContain('SIGTERM: finishing in-flight requests');
    } finally {
      agent.destroy();
      await server.stop('SIGKILL');
      await database.drop();
    }
  });

  it.each(['the API port', 'METRICS_PORT'])(
    'with --workers 2, starts two workers, answers /metrics on %s for both whatever worker is scraped, and exits 0 on SIGTERM',
    async (where) => {
      const { database, key } = await preparedDatabase(kind);
      const metricsPort = where === 'METRICS_PORT' ? await freePort() : undefined;
      const env = { DATABASE_URL: database.url, LOG_LEVEL: 'info', ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}) };
      const server = await startServerProcess(env, ['--workers', '2'], 'started 2 workers');
      const metricsUrl = `${metricsPort ? `http://127.0.0.1:${metricsPort}` : server.url}/metrics`;
      try {
        for (let i = 0; i < 150 && (server.output().match(/netgraph listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
        expect((server.output().match(/netgraph listening/g) ?? []).length).toBe(2);
        const requests = 24;
        for (let i = 0; i < requests; i++) expect(await postOnNewConnection(server.url, key, 'query Spread { companyBySlug(slug: "acme") { slug } }')).toBe(200);
        // each scrape on a connection of its own, so the scrapes land on both workers too
        for (let scrape = 0; scrape < 4; scrape++) {
          const text = await getOnNewConnection(metricsUrl);
          expect(text).toMatch(new RegExp(`^netgraph_http_requests_total\\{route="/api/v1/graphql",operation="Spread",status="200"\\} ${requests}$`, 'm'));
          const perWorker = [...text.matchAll(/^netgraph_worker_http_requests_total\{worker="(\d+)"\} (\d+)$/gm)].map((m) => Number(m[2]));
          // both workers served some of them, and the per-worker figures add up to the whole
          expect(perWorker, text).toHaveLength(2);
          expect(Math.min(...perWorker)).toBeGreaterThan(0);
          expect(perWorker.reduce((a, b) => a + b, 0)).toBe(sumOfSeries(text, 'netgraph_http_requests_total'));
        }
        // before the fix the primary waited forever for workers held open by their IPC channel
        expect(await server.stop('SIGTERM')).toBe(0);
      } finally {
        await server.stop('SIGKILL');
        await database.drop();
      }
    },
  );

  it('starts, and migrate succeeds, on a database that a newer version migrated further (a rolling upgrade, or a rollback)', async () => {
    const { database, key } = await preparedDatabase(kind);
    try {
      // what a newer version's `netgraph migrate` leaves behind: a migration this version does not know
      const newer = await startTestApp(kind, { database });
      await sql`INSERT INTO netgraph_migration (name, timestamp) VALUES (${'9999-of-a-newer-version'}, ${new Date().toISOString()})`.execute(newer.server.store.db);
      await newer.server.close();
      const migrate = await runNetgraph(['migrate', '--json'], { DATABASE_URL: database.url });
      expect(migrate.code, migrate.stderr).toBe(0);
      expect(migrate.stdout).toContain('"applied": []');
      const server = await startServerProcess({ DATABASE_URL: database.url });
      try {
        await new Promise((r) => setTimeout(r, 300));
        expect(server.child.exitCode, server.output()).toBeNull();
        expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
        expect((await post(server.url, key)).status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      await database.drop();
    }
  });

  it('runs as several processes on one database: both start at once on an empty database, and a revocation holds on both', async () => {
    const database = await createTestDatabase(kind);
    try {
      const [a, b] = await Promise.all([
        startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' }),
        startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' }),
      ]);
      try {
        expect((await runNetgraph(['migrate', '--json'], { DATABASE_URL: database.url })).stdout).toContain('"applied": []');
        expect((await runNetgraph(['company', 'create', '--slug', 'acme', '--name', 'Acme'], { DATABASE_URL: database.url })).code).toBe(0);
        const created = JSON.parse((await runNetgraph(['keys', 'create', '--company', 'acme', '--label', 'shared', '--json'], { DATABASE_URL: database.url })).stdout);
        expect((await post(a.url, created.key)).status).toBe(200);
        expect((await post(b.url, created.key)).status).toBe(200);
        expect((await runNetgraph(['keys', 'revoke', created.id], { DATABASE_URL: database.url })).code).toBe(0);
        expect((await post(a.url, created.key)).status).toBe(401);
        expect((await post(b.url, created.key)).status).toBe(401);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    } finally {
      await database.drop();
    }
  });
});

describe.runIf(storeKinds().includes('postgres'))('PostgreSQL going away and coming back', () => {
  it('answers 503 with Retry-After while PostgreSQL refuses more connections (too many clients), and recovers', async () => {
    const app = await startTestApp('postgres', { data: createFixture(), backgroundWork: false });
    const key = await app.createKey('acme');
    // a role of its own, whose connection limit refuses this server's connections and no other test's
    const role = `netgraph_capped_${Date.now().toString(36)}`;
    // the app's schema: its own in the run's database, or public in a copied template (test/helpers/stores.ts)
    const schema = new URL(app.database.url).searchParams.get('options')?.replace('-c search_path=', '') ?? 'public';
    const admin = new pg.Client({ connectionString: app.database.url });
    await admin.connect();
    await admin.query(
      `CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0; GRANT USAGE ON SCHEMA ${schema} TO ${role};` +
        ` GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`,
    );
    const url = new URL(app.database.url);
    url.username = role;
    // every connection it opens is refused with error 53300, as when max_connections is reached
    const server = await startServerProcess({ DATABASE_URL: url.toString(), LOG_LEVEL: 'info', DEMO_DATA: 'off' }, [], 'listening');
    try {
      await expectDatabaseUnavailable(server.url, key);
      for (let i = 0; i < 4; i++) expect((await post(server.url, key)).status).toBe(503);
      expect(server.output()).not.toContain('unexpected error');
      // one warning for the five answers, with PostgreSQL's reason (at most one a 10 s, however many requests)
      await new Promise((r) => setTimeout(r, 200));
      const warnings = server
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"database unavailable'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(warnings, server.output()).toEqual([
        expect.objectContaining({ level: 40, reason: expect.stringMatching(/database is unavailable/), cause: expect.objectContaining({ code: '53300' }), answered503: 1 }),
      ]);
      await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`);
      expect(await statusOnceBack(server.url, key)).toBe(200);
    } finally {
      await server.stop();
      // before the app's database goes: dropping it ends every connection to it, this one's too
      await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
      await admin.end();
      await app.close();
    }
  });

  it('answers 503 "every database connection of this server is busy" to a request that waited 5 s for a connection, not "unavailable"', async () => {
    const app = await startTestApp('postgres', { data: createFixture(), backgroundWork: false, env: { DATABASE_POOL_SIZE: '1' } });
    const key = await app.createKey('acme');
    const admin = new pg.Client({ connectionString: app.database.url });
    await admin.connect();
    try {
      // the reads' one connection waits for this lock in the first request's statement, and stays in use
      await admin.query('BEGIN; LOCK TABLE networks IN ACCESS EXCLUSIVE MODE');
      const first = app.graphql('{ networksForCompany(companySlug: "acme") { UUID } }', { key });
      first.catch(() => undefined);
      const locked = async () =>
        (await admin.query("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'networks'::regclass")).rows[0].n > 0;
      for (let i = 0; i < 100 && !(await locked()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await locked()).toBe(true);
      const started = Date.now();
      const second = await app.graphql(`{ hardwareDevice(serialNumber: "${SERIALS.acmeSwitch}") { serialNumber } }`, { key });
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
      expectServiceUnavailable(second, 'Every database connection of this server is busy; retry shortly.');
      await admin.query('ROLLBACK');
      expect((await first).status).toBe(200);
    } finally {
      await admin.end();
      await app.close();
    }
  });

  it('starts while the database is down, answers 503 until it is up, then recovers without a restart', async () => {
    const database = await createTestDatabase('postgres');
    const target = new URL(database.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    // the server starts with nothing listening at the database address
    const server = await startServerProcess({ DATABASE_URL: proxied.toString(), LOG_LEVEL: 'info', DEMO_DATA: 'on' }, [], 'listening');
    try {
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // a well-formed key passes the checksum, so it reaches the (missing) database
      await expectDatabaseUnavailable(server.url, generateKey().key);

      // the database comes up: migrations run, the demo loads, the key it printed works
      await proxy.open();
      let key: string | undefined;
      for (let i = 0; i < 100 && !key; i++) {
        key = /API key \(shown only this once, store it now\): (ngk_\w+)/.exec(server.output())?.[1];
        if (!key) await new Promise((r) => setTimeout(r, 100));
      }
      expect(key, server.output()).toBeDefined();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect((await post(server.url, key as string)).status).toBe(200);

      // it goes away under the running server, and comes back
      await proxy.cut();
      const gone = await post(server.url, key as string);
      expect(gone.status).toBe(503);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      await proxy.open();
      expect(await statusOnceBack(server.url, key as string)).toBe(200);
    } finally {
      await server.stop();
      await proxy.cut();
      await database.drop();
    }
  });
});

describe('SQLite opened by two processes at once', () => {
  it('waits for the other process to release a new file before it switches the file to WAL, instead of failing "database is locked"', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-sqlite-open-'));
    const file = path.join(dir, 'netgraph.db');
    // another process creates the file and holds its write lock for 400 ms, as a first server migrating does
    const holder = spawn(
      process.execPath,
      ['-e', "const c = new (require('better-sqlite3'))(process.argv[1]); c.exec('begin immediate; create table held (a)'); console.log('locked'); const t = Date.now(); while (Date.now() - t < 400); c.exec('commit'); c.close();", file],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((resolve) => holder.stdout.once('data', resolve));
      const started = performance.now();
      const store = openSqliteStore(file);
      try {
        expect(performance.now() - started).toBeGreaterThan(100);
        expect(await store.selectRow("SELECT count(*) AS n FROM sqlite_master WHERE name = 'held'", [])).toEqual({ n: 1 });
        expect((await store.selectRow('PRAGMA journal_mode', [])) as unknown).toEqual({ journal_mode: 'wal' });
      } finally {
        await store.close();
      }
    } finally {
      holder.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
