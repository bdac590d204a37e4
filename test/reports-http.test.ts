import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

const FORBIDDEN_SHAPE = { errors: [{ message: expect.any(String), extensions: { code: 'FORBIDDEN' } }], data: null };
const UNAUTHORIZED_BODY = { title: 'Unauthorized. Please include your API credentials', id: 'unauthorized', status: 401 };

describe.each(storeKinds())('the report endpoint over HTTP on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let key: string;
  const now = () => new Date(clock.now()).toISOString();
  const errorCode = (body: { errors?: { extensions?: { code?: string } }[]; data?: unknown }) => {
    expect(body.data).toBeNull();
    return body.errors?.[0]?.extensions?.code;
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { INGEST_RATE_LIMIT_REPORTS: '20' } });
    key = await createScopedKey(app, 'ingest');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses an ingest key on the GraphQL API with 403 FORBIDDEN', async () => {
    const response = await app.graphql('{ networksForCompany(companySlug: "acme") { UUID } }', { key });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(FORBIDDEN_SHAPE);
  });

  it('refuses read and read_write keys on reports with 403, no or revoked keys with 401', async () => {
    for (const scope of ['read', 'read_write'] as const) {
      const response = await postReports(app, await createScopedKey(app, scope), [report(SERIALS.acmeAp, now())]);
      expect(response.status).toBe(403);
      expect(response.body).toEqual(FORBIDDEN_SHAPE);
    }
    const none = await postReports(app, null, [report(SERIALS.acmeAp, now())]);
    expect(none.status).toBe(401);
    expect(none.body).toEqual(UNAUTHORIZED_BODY);
    const revoked = await app.server.services.apiKeys.create({ companySlug: 'acme', label: 'old collector', scope: 'ingest' });
    expect((await postReports(app, revoked.key, [report(SERIALS.acmeAp, now())])).status).toBe(200);
    await app.server.services.apiKeys.revoke(revoked.id);
    const after = await postReports(app, revoked.key, [report(SERIALS.acmeAp, now())]);
    expect(after.status).toBe(401);
    expect(after.body).toEqual(UNAUTHORIZED_BODY);
  });

  it('answers problems of the whole request with 400, 413 and 415 in the documented shape', async () => {
    const cases: [unknown, number, string][] = [
      ['{"reports": [', 400, 'BAD_REQUEST'],
      ['[]', 400, 'BAD_REQUEST'],
      ['{}', 400, 'BAD_REQUEST'],
      [JSON.stringify({ reports: [] }), 400, 'BAD_REQUEST'],
      [JSON.stringify({ reports: Array.from({ length: 501 }, () => ({})) }), 400, 'BAD_REQUEST'],
      [JSON.stringify({ reports: [{ pad: 'x'.repeat(5 * 1024 * 1024) }] }), 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [body, status, code] of cases) {
      const response = await postReports(app, key, body);
      expect(response.status, String(body).slice(0, 40)).toBe(status);
      expect(errorCode(response.body)).toBe(code);
    }
    const text = await postReports(app, key, 'reports', { headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(errorCode(text.body)).toBe('UNSUPPORTED_MEDIA_TYPE');
    const notGzip = await postReports(app, key, '{"reports":[]}', { headers: { 'content-encoding': 'gzip' } });
    expect(notGzip.status).toBe(400);
    expect(errorCode(notGzip.body)).toBe('BAD_REQUEST');
    const get = await app.request('/api/v1/reports');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('takes gzip, with the limit on the decompressed size', async () => {
    const response = await postReports(app, key, [report(SERIALS.acmeAp, now())], { gzip: true });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    // a few KiB on the wire, over 5 MiB inflated
    const bomb = await postReports(app, key, JSON.stringify({ reports: [{ pad: ' '.repeat(6 * 1024 * 1024) }] }), { gzip: true });
    expect(bomb.status).toBe(413);
    expect(errorCode(bomb.body)).toBe('PAYLOAD_TOO_LARGE');
  });

  it('limits reports per key per minute, with the request limit headers and 429 body', async () => {
    clock.advance(61_000);
    const limited = await createScopedKey(app, 'ingest');
    const batch = (n: number) => Array.from({ length: n }, () => report(SERIALS.acmeAp, now()));
    const first = await postReports(app, limited, batch(15));
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('5');
    expect(first.headers.get('ratelimit-policy')).toBe('"reports";q=20;w=60');
    const over = await postReports(app, limited, batch(6));
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ title: 'Too many requests', id: 'too_many_requests', detail: 'Too many requests', status: 429 });
    expect(over.headers.get('retry-after')).toBe(new Date(clock.now() + 60_000).toUTCString());
    clock.advance(60_000);
    expect((await postReports(app, limited, batch(6))).status).toBe(200);
  });

  it('creates ingest keys with `netgraph keys create --scope ingest`, and offers the scope in the dashboard form', async () => {
    const created = await runNetgraph(['keys', 'create', '--company', 'acme', '--label', 'collector', '--scope', 'ingest', '--json'], { DATABASE_URL: app.database.url });
    expect(created.code).toBe(0);
    const cliKey = JSON.parse(created.stdout) as { key: string; scope: string };
    expect(cliKey.scope).toBe('ingest');
    expect((await postReports(app, cliKey.key, [report(SERIALS.acmeAp, now())])).status).toBe(200);
    const { renderKeyList } = await import('../src/dashboard/api-keys.view.js');
    const session = { user: { role: 'admin', companyName: 'Acme' }, csrfToken: 't' } as never;
    const page = String(renderKeyList({ session, keys: [], form: { label: '', scope: 'read', expires: '', allow: '' }, revoked: undefined }));
    expect(page).toContain('<option value="ingest">Ingest (device reports)</option>');
  });
});
