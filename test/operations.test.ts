import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../src/demo/dataset.js';
import { generateKey } from '../src/modules/api-key/api-key.token.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { createFixture } from './helpers/fixture.js';
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

  it('with --workers 2, starts two workers and exits 0 on SIGTERM', async () => {
    const { database, key } = await preparedDatabase(kind);
    const server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' }, ['--workers', '2'], 'started 2 workers');
    try {
      for (let i = 0; i < 50 && (server.output().match(/netgraph listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect((server.output().match(/netgraph listening/g) ?? []).length).toBe(2);
      for (let i = 0; i < 10; i++) expect((await post(server.url, key)).status).toBe(200);
      // before the fix the primary waited forever for workers held open by their IPC channel
      expect(await server.stop('SIGTERM')).toBe(0);
    } finally {
      await server.stop('SIGKILL');
      await database.drop();
    }
  });

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
      const unavailable = await fetch(`${server.url}/api/v1/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${generateKey().key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY }),
      });
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('retry-after')).toBe('1');
      expect(await unavailable.json()).toEqual({
        errors: [{ message: expect.stringMatching(/database is unavailable/), extensions: { code: 'SERVICE_UNAVAILABLE' } }],
        data: null,
      });

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
      let back = 0;
      for (let i = 0; i < 50 && back !== 200; i++) {
        back = (await post(server.url, key as string)).status;
        if (back !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(back).toBe(200);
    } finally {
      await server.stop();
      await proxy.cut();
      await database.drop();
    }
  });
});
