import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp, TestResponse } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { signedInClient, startDashboardApp } from './helpers/dashboard.js';
import { createFixture, SERIALS } from './helpers/fixture.js';
import { postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

const NAMED = 'query Names { companyBySlug(slug: "acme") { slug networks { slug } } networksForCompany(companySlug: "acme") { slug } }';
const DAY_MS = 86_400_000;
/** A 400: its variable is missing (BAD_USER_INPUT), found before anything runs. */
const BAD = 'query Bad($id: UUID!) { network(UUID: $id) { UUID } }';

describe.each(storeKinds())('the per-key request log on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    // a small request window, so a 429 takes a few requests; every test uses keys of its own
    app = await startTestApp(kind, { data: createFixture(), env: { RATE_LIMIT_REQUESTS: '6', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const create = (label: string, terms: { scope?: 'read' | 'read_write' | 'ingest'; allow?: string[]; expires?: string } = {}) =>
    app.server.services.apiKeys.create({ companySlug: 'acme', label, ...terms });
  const post = (key: string, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> =>
    app.request('/api/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'user-agent': 'reqlog-test/1.0', ...headers }, body: JSON.stringify(body) });
  /** The key's logged requests, newest first, once everything recorded is written. */
  const logOf = async (id: string, query: { status?: string; operationName?: string } = {}) => {
    await app.server.services.requestLog.flush();
    return app.server.services.requestLog.requests(id, { sinceMs: DAY_MS, ...query });
  };

  it('logs each request made with a key with its operation, root fields, status, cost, duration, statements, address and user agent', async () => {
    const key = await create('named');
    // the first request looks the key up (one statement more); the second is what is looked at
    expect((await post(key.key, { query: '{ __typename }' })).status).toBe(200);
    const res = await post(key.key, { query: NAMED, extensions: { cost: true } }, { 'x-forwarded-for': '203.0.113.7', 'x-request-id': 'reqlog-named-1' });
    expect(res.status, res.text).toBe(200);
    const { requests, key: info } = await logOf(key.id);
    expect(info.id).toBe(key.id);
    expect(requests).toHaveLength(2);
    const [named, first] = requests;
    expect(named).toMatchObject({
      requestId: 'reqlog-named-1',
      method: 'POST',
      path: '/api/v1/graphql',
      operationName: 'Names',
      rootFields: 'companyBySlug,networksForCompany',
      status: 200,
      errorCodes: null,
      cost: res.body.extensions.cost.actual,
      statements: 1,
      clientAddress: '203.0.113.7',
      userAgent: 'reqlog-test/1.0',
    });
    expect(named?.cost).toBeGreaterThan(0);
    expect(named?.durationMs).toBeGreaterThan(0);
    expect(Date.parse(named?.requestedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(first).toMatchObject({ operationName: null, rootFields: '__typename', status: 200, statements: 2 });
  });

  it('logs a 400 and a 429 with their error codes, and a field error of a 200', async () => {
    const key = await create('errors');
    const invalid = await post(key.key, { query: BAD });
    expect(invalid.status).toBe(400);
    expect((await post(key.key, { query: 'query Nope { nope }' })).status).toBe(422);
    const missing = await post(key.key, { query: '{ virtualDevice(UUID: "00000000-0000-4000-8000-000000000000") { UUID } }', extensions: { cost: true } });
    expect(missing.status).toBe(200);
    const codes = missing.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code);
    let limited: TestResponse | undefined;
    for (let i = 0; i < 10 && limited === undefined; i++) {
      const res = await post(key.key, { query: '{ __typename }' });
      if (res.status === 429) limited = res;
    }
    expect(limited?.status).toBe(429);
    const { requests } = await logOf(key.id);
    // the newest: two requests in the same millisecond (the 429 and the 200 before it, on a fast machine) come in request id order
    const newest = Math.max(...requests.map((r) => Date.parse(r.requestedAt)));
    const tooMany = requests.find((r) => r.status === 429);
    expect(Date.parse(tooMany?.requestedAt ?? '')).toBe(newest);
    expect(requests.slice(0, requests.findIndex((r) => r === tooMany)).every((r) => Date.parse(r.requestedAt) === newest)).toBe(true);
    expect(tooMany).toMatchObject({ status: 429, errorCodes: 'TOO_MANY_REQUESTS', cost: null, operationName: null });
    // the key's first request: its lookup, then the check that it is still valid (nothing ran that checked it)
    expect(requests.find((r) => r.status === 400)).toMatchObject({ operationName: 'Bad', rootFields: 'network', errorCodes: 'BAD_USER_INPUT', cost: null, statements: 2 });
    // an invalid document names no operation the log could trust: no root fields either
    expect(requests.find((r) => r.status === 422)).toMatchObject({ operationName: null, rootFields: null, errorCodes: 'GRAPHQL_VALIDATION_FAILED', cost: null });
    expect(requests.find((r) => r.rootFields === 'virtualDevice')).toMatchObject({ status: 200, errorCodes: codes.join(','), cost: missing.body.extensions.cost.actual });
    // filters: a status class, one status, an operation
    expect((await logOf(key.id, { status: '4xx' })).requests.map((r) => r.status).sort()).toEqual([400, 422, 429]);
    expect((await logOf(key.id, { status: '429' })).requests.map((r) => r.status)).toEqual([429]);
    expect((await logOf(key.id, { operationName: 'Bad' })).requests.map((r) => r.status)).toEqual([400]);
    const hourly = (await logOf(key.id)).hourly;
    expect(hourly.reduce((n, h) => n + h.count, 0)).toBe(requests.length);
    expect(hourly.find((h) => h.status === 429)?.count).toBe(1);
  });

  it('logs a refused key: from an address outside its allowlist, and expired, as 401', async () => {
    const fenced = await create('fenced', { allow: ['192.0.2.0/24'] });
    expect((await post(fenced.key, { query: '{ __typename }' }, { 'x-forwarded-for': '192.0.2.9' })).status).toBe(200);
    expect((await post(fenced.key, { query: '{ __typename }' }, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(401);
    const fencedLog = (await logOf(fenced.id)).requests;
    expect(fencedLog.map((r) => [r.status, r.clientAddress])).toEqual([[401, '198.51.100.1'], [200, '192.0.2.9']]);
    expect(fencedLog[0]).toMatchObject({ errorCodes: 'UNAUTHENTICATED', operationName: null, rootFields: null, cost: null });

    // expired before its first use (looked up, not cached), and once cached
    const expired = await create('expired');
    const cached = await create('expired once cached', { scope: 'ingest' });
    expect((await postReports(app, cached.key, [report(SERIALS.acmeAp, new Date().toISOString())])).status).toBe(200);
    await app.server.store.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1_000).toISOString() }).where('uuid', 'in', [expired.id, cached.id]).execute();
    expect((await post(expired.key, { query: '{ __typename }' })).status).toBe(401);
    expect((await postReports(app, cached.key, [report(SERIALS.acmeAp, new Date().toISOString())])).status).toBe(401);
    expect((await logOf(expired.id)).requests.map((r) => [r.status, r.path, r.errorCodes])).toEqual([[401, '/api/v1/graphql', 'UNAUTHENTICATED']]);
    const reports = (await logOf(cached.id)).requests;
    expect(reports.map((r) => [r.status, r.method, r.path, r.errorCodes, r.cost])).toEqual([
      [401, 'POST', '/api/v1/reports', 'UNAUTHENTICATED', null],
      [200, 'POST', '/api/v1/reports', null, null],
    ]);
  });

  it('keeps every company to its own keys\' logs', async () => {
    const key = await create('scoped');
    const globex = await app.server.services.companies.getBySlug('globex');
    const acme = await app.server.services.companies.getBySlug('acme');
    await expect(app.server.services.requestLog.requests(key.id, { sinceMs: DAY_MS }, globex.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(app.server.services.requestLog.requests(key.prefix, { sinceMs: DAY_MS }, globex.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await app.server.services.requestLog.requests(key.prefix, { sinceMs: DAY_MS }, acme.id)).key.id).toBe(key.id);
    await expect(app.server.services.requestLog.requests(key.id, { sinceMs: 31 * DAY_MS })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'since' } });
    await expect(app.server.services.requestLog.requests(key.id, { sinceMs: DAY_MS, status: '4x' })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'status' } });
  });

  it('retention deletes requests older than API_REQUEST_LOG_DAYS and keeps the rest', async () => {
    const key = await create('retention');
    const { requestLog } = app.server.services;
    const writer = requestLog.writer;
    expect(writer).toBeDefined();
    const keyId = Number((await app.server.store.db.selectFrom('api_keys').select('id').where('uuid', '=', key.id).executeTakeFirstOrThrow()).id);
    const entry = (daysAgo: number, requestId: string) => ({
      at: Date.now() - daysAgo * DAY_MS,
      keyId,
      requestId,
      method: 'POST',
      path: '/api/v1/graphql',
      operationName: null,
      rootFields: ['__typename'],
      status: 200,
      errorCodes: [],
      cost: 1,
      durationMs: 1.5,
      statements: 1,
      clientAddress: '127.0.0.1',
      userAgent: null,
    });
    // on PostgreSQL, a day partition of its own (dropped whole) and the DEFAULT partition (deleted by rows)
    if (app.server.store.dialect.partitionsByTime) {
      const { ensureDailyPartitions } = await import('../src/ingest/partitions.repository.js');
      await ensureDailyPartitions(app.server.store.db as never, 'api_request_log_sets', Date.now() - 40 * DAY_MS, Date.now() - 40 * DAY_MS);
    }
    for (const [days, id] of [[40, 'old-partitioned'], [100, 'old-default'], [29, 'kept'], [0, 'today']] as const) writer?.record(entry(days, id));
    await requestLog.flush();
    const ids = async () =>
      (await app.server.store.db.selectFrom('api_request_log').select('request_id').where('api_key_id', '=', keyId).orderBy('request_id').execute()).map((r) => r.request_id);
    expect(await ids()).toEqual(['kept', 'old-default', 'old-partitioned', 'today']);
    expect(await requestLog.expire()).toBeGreaterThanOrEqual(2);
    expect(await ids()).toEqual(['kept', 'today']);
  });

  it('netgraph keys requests prints a key\'s requests and the hourly overview, and --json', async () => {
    const key = await create('cli');
    expect((await post(key.key, { query: NAMED })).status).toBe(200);
    expect((await post(key.key, { query: BAD })).status).toBe(400);
    await app.server.services.requestLog.flush();
    const env = { DATABASE_URL: app.database.url };
    const text = await runNetgraph(['keys', 'requests', key.prefix, '--since', '24h'], env);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(`Requests of API key "cli" (${key.id}, ${key.prefix}…) of acme since ${lines[0]?.match(/since (\S+):$/)?.[1]}:`);
    expect(lines[1]).toMatch(/^TIME +METHOD +PATH +STATUS +OPERATION +ROOT FIELDS +ERRORS +COST +MS +SQL +FROM +USER AGENT$/);
    expect(lines[2]).toMatch(/ POST +\/api\/v1\/graphql +400 +Bad +network +BAD_USER_INPUT +- +[\d.]+ +1 +127\.0\.0\.1 +reqlog-test\/1\.0$/);
    expect(lines[3]).toMatch(/ POST +\/api\/v1\/graphql +200 +Names +companyBySlug,networksForCompany +- +\d+ +[\d.]+ +2 +127\.0\.0\.1 +reqlog-test\/1\.0$/);
    expect(lines[5]).toBe('Requests per hour by status:');
    expect(lines[6]).toMatch(/^HOUR +200 +400 +TOTAL$/);
    expect(lines[7]).toMatch(/^\d{4}-\d\d-\d\d \d\d:00Z +1 +1 +2$/);

    const json = await runNetgraph(['keys', 'requests', key.id, '--status', '4xx', '--json'], env);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.requests.map((r: { status: number }) => r.status)).toEqual([400]);
    expect(parsed.key).toMatchObject({ id: key.id, label: 'cli' });

    const bad = await runNetgraph(['keys', 'requests', 'ngk_', '--since', '2w'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--since must be a duration back from now like 30m, 24h or 7d, not "2w"');
  }, 120_000);
});

describe.each(storeKinds())('a key\'s page in the dashboard on %s', (kind) => {
  const KEYS = '/settings/integrations/api-keys';
  let app: TestApp;
  beforeAll(async () => {
    app = await startDashboardApp(kind);
  });
  afterAll(async () => {
    await app?.close();
  });
  const session = (email: string) => signedInClient(app, email);

  it('lists the key\'s requests, filtered by status class and operation, paged, with the hourly chart; to its company\'s admins only', async () => {
    const key = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'page key' });
    const send = (query: string) => app.graphql(query, { key: key.key });
    for (let i = 0; i < 3; i++) expect((await send('query Mine { companyBySlug(slug: "acme") { slug } }')).status).toBe(200);
    expect((await send('query Broken($id: UUID!) { network(UUID: $id) { UUID } }')).status).toBe(400);
    await app.server.services.requestLog.flush();

    const admin = await session('admin@acme.example');
    const list = await admin.get(KEYS);
    expect(list.text).toContain(`href="${KEYS}/${key.id}" data-key-page>page key</a>`);
    const page = await admin.get(`${KEYS}/${key.id}`);
    expect(page.status).toBe(200);
    expect(page.text.match(/<tr data-request-id=/g)).toHaveLength(4);
    expect(page.text).toContain('<code>BAD_USER_INPUT</code>');
    const chart = JSON.parse(/<script type="application\/json" class="chart-data">(.*?)<\/script>/.exec(page.text)?.[1] ?? 'null');
    // 200 green and 400 amber: palette indices 1 and 2 of web/charts.js, by status class
    expect(chart).toMatchObject({ unit: 'requests', kind: 'stacked-bars', labels: ['200', '400'], styles: [{ color: 1 }, { color: 2 }] });
    expect(chart.data[1].reduce((a: number, b: number | null) => a + (b ?? 0), 0)).toBe(3);
    expect(chart.data[2].reduce((a: number, b: number | null) => a + (b ?? 0), 0)).toBe(1);

    const refused = await admin.get(`${KEYS}/${key.id}?status=4xx`);
    expect(refused.text.match(/<tr data-request-id=/g)).toHaveLength(1);
    expect(refused.text).toContain('Broken');
    const mine = await admin.get(`${KEYS}/${key.id}?operation=Mine`);
    expect(mine.text.match(/<tr data-request-id=/g)).toHaveLength(3);
    expect(mine.text).not.toContain('Broken');

    const globex = await session('admin@globex.example');
    const foreign = await globex.get(`${KEYS}/${key.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('page key');
    const member = await session('member@acme.example');
    expect((await member.get(`${KEYS}/${key.id}`)).status).toBe(403);
  });
});

describe.each(storeKinds())('with API_REQUEST_LOG=off on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), env: { API_REQUEST_LOG: 'off' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('records nothing, and the log still reads', async () => {
    const key = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'off' });
    expect((await app.graphql('{ __typename }', { key: key.key })).status).toBe(200);
    expect(app.server.services.requestLog.writer).toBeUndefined();
    await app.server.services.requestLog.flush();
    expect((await app.server.services.requestLog.requests(key.id, { sinceMs: DAY_MS })).requests).toEqual([]);
  });
});
