// Two `netgraph serve` processes (built dist/) on one PostgreSQL database
// behind HAProxy, configured from deploy/haproxy.cfg.template, the
// configuration docs/operations.md shows.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { freePort, startServerProcess } from './helpers/processes.js';
import type { ServerProcess } from './helpers/processes.js';
import { storeKinds } from './helpers/stores.js';
import type { TestDatabase } from './helpers/stores.js';

const HAPROXY = '/usr/sbin/haproxy';
const QUERY = JSON.stringify({ query: '{ companyBySlug(slug: "acme") { slug networks { slug } } }' });

interface Haproxy {
  renderHaproxyConfig(options: { bind: string; servers: { name: string; address: string }[]; log?: string }): string;
  startHaproxy(options: { config: string; dir: string; port: number }): Promise<{ stop(): Promise<void> }>;
}
const haproxy = (await import(new URL('../scripts/cluster/haproxy.mjs', import.meta.url).href)) as Haproxy;

/** True when HAProxy is installed; with CI=true a missing one fails the run (.ci/run installs it). */
function haproxyAvailable(): boolean {
  if (fs.existsSync(HAPROXY)) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true requires HAProxy at ${HAPROXY} for the load-balancer test: apt-get install -y haproxy`);
  console.warn(`notice: ${HAPROXY} is missing, so the load-balancer test is skipped. Install it with: apt-get install -y haproxy`);
  return false;
}

interface Answer {
  readonly status: number | string;
  readonly text: string;
}

/** One request over `agent` (or a fresh connection), from `localAddress` when given; an error's message instead of a status. */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent; localAddress?: string }): Promise<Answer> {
  return new Promise((resolve) => {
    const headers = { ...options.headers, ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) };
    const request = http.request(url, { method: options.method ?? 'GET', headers, agent: options.agent ?? false, localAddress: options.localAddress });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', (error) => resolve({ status: error.message, text }));
    });
    request.on('error', (error) => resolve({ status: error.message, text: '' }));
    request.end(options.body);
  });
}

/** The request lines a process logged. */
function requestLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.runIf(storeKinds().includes('postgres') && haproxyAvailable())('two processes behind HAProxy', () => {
  let database: TestDatabase;
  let key: string;
  let servers: ServerProcess[];
  let lb: { stop(): Promise<void> };
  let lbUrl: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-lb-'));
  const graphql = (extra: { agent?: http.Agent; localAddress?: string; headers?: Record<string, string> } = {}) =>
    send(`${lbUrl}/api/v1/graphql`, {
      method: 'POST',
      body: QUERY,
      ...extra,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra.headers },
    });

  beforeAll(async () => {
    const app = await startTestApp('postgres', { data: createFixture() });
    key = await app.createKey('acme', 'load balancer');
    await app.server.close();
    database = app.database;
    // the drain delay of docs/operations.md: above HAProxy's inter (1 s) x fall (2)
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'info', TRUST_PROXY: 'on', DRAIN_DELAY_MS: '3000' };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    const port = await freePort();
    lbUrl = `http://127.0.0.1:${port}`;
    const config = haproxy.renderHaproxyConfig({
      bind: `127.0.0.1:${port}`,
      log: 'stdout format raw local0 notice',
      servers: servers.map((server, i) => ({ name: `netgraph${i + 1}`, address: new URL(server.url).host })),
    });
    lb = await haproxy.startHaproxy({ config, dir, port });
  });

  afterAll(async () => {
    await lb?.stop();
    await Promise.all((servers ?? []).map((server) => server.stop('SIGKILL')));
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('spreads requests over both processes, and each logs the client address, not the proxy one nor one the client made up', async () => {
    for (let i = 0; i < 12; i++) {
      const answer = await graphql({ localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '203.0.113.7', 'x-request-id': `lb-${i}` } });
      expect(answer.status, answer.text).toBe(200);
    }
    // a Fastify route (the dashboard's sign-in page): request.ip, which the sign-in lockout counts
    expect((await send(`${lbUrl}/sign-in`, { localAddress: '127.0.0.3', headers: { 'x-request-id': 'lb-page' } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = servers.flatMap(requestLines).filter((line) => String(line.requestId).startsWith('lb-'));
    expect(lines).toHaveLength(13);
    for (const server of servers) expect(requestLines(server).some((line) => String(line.requestId).startsWith('lb-'))).toBe(true);
    expect(lines.filter((line) => line.path === '/api/v1/graphql').map((line) => line.clientAddress)).toEqual(Array(12).fill('127.0.0.2'));
    expect(lines.find((line) => line.requestId === 'lb-page')?.clientAddress).toBe('127.0.0.3');
  });

  it('keeps /metrics from clients that are not on this machine, although the proxy is', async () => {
    const [server] = servers;
    expect((await send(`${server!.url}/metrics`, {})).status).toBe(200);
    expect((await send(`${server!.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(404);
  });

  it('drains a process on SIGTERM under load: HAProxy moves its requests to the other one and no request fails', async () => {
    const [leaving, staying] = servers as [ServerProcess, ServerProcess];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const statuses: (number | string)[] = [];
    let stop = false;
    const loops = Array.from({ length: 8 }, async () => {
      while (!stop) statuses.push((await graphql({ agent })).status);
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const servedBefore = statuses.length;
      // it keeps serving for DRAIN_DELAY_MS with /readyz at 503, which HAProxy's checks (every second, out after two) see
      expect(await leaving.stop('SIGTERM')).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      stop = true;
      await Promise.all(loops);
      expect(statuses.length).toBeGreaterThan(servedBefore);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(leaving.output()).toContain('SIGTERM: finishing in-flight requests');
      expect(requestLines(leaving).some((line) => line.path === '/readyz' && line.status === 503)).toBe(true);
      const after = await graphql({ headers: { 'x-request-id': 'after-drain' } });
      expect(after.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(requestLines(staying).some((line) => line.requestId === 'after-drain')).toBe(true);
    } finally {
      stop = true;
      agent.destroy();
    }
  });

  it('is configured from the template that docs/operations.md shows, next to the documented unit and environment files', () => {
    const documented = haproxy.renderHaproxyConfig({
      bind: '0.0.0.0:80',
      servers: [
        { name: 'api-1', address: '10.0.0.11:4000' },
        { name: 'api-2', address: '10.0.0.12:4000' },
      ],
    });
    const docs = fs.readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    expect(docs).toContain(documented);
    // the systemd unit and the environment file the docs show are the files in deploy/
    for (const file of ['netgraph@.service', 'netgraph.env']) {
      expect(docs).toContain(fs.readFileSync(new URL(`../deploy/${file}`, import.meta.url), 'utf8'));
    }
  });
});
