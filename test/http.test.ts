import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/kernel/errors.js';
import { renderSchemaReference } from '../src/engine/reference.js';
import { createSchema, printSchemaReference } from '../src/engine/schema.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const UNAUTHORIZED = { title: 'Unauthorized. Please include your API credentials', id: 'unauthorized', status: 401 };
const GRAPHQL = '/api/v1/graphql';

describe.each(storeKinds())('the HTTP endpoint on %s', (kind) => {
  let app: TestApp;
  let key: string;
  const post = (body: string, headers: Record<string, string> = {}) =>
    app.request(GRAPHQL, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await app.createKey('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('401 with the Meter body and WWW-Authenticate: Bearer', () => {
    const cases: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['a malformed key', { authorization: 'Bearer not-a-key' }],
      ['a well-formed unknown key', { authorization: 'Bearer ngk_00000000000000000000000000000000000000' }],
    ];
    it.each(cases)('%s', async (_name, headers) => {
      const res = await app.request(GRAPHQL, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"query":"{ __typename }"}' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual(UNAUTHORIZED);
    });

    it('a revoked key, even for a request that never reaches the database', async () => {
      const doomed = await app.createKey('acme', 'doomed');
      expect((await app.graphql('{ __typename }', { key: doomed })).status).toBe(200);
      const [info] = (await app.server.services.apiKeys.list('acme')).filter((k) => k.label === 'doomed');
      await app.server.services.apiKeys.revoke(info!.id);
      for (const query of ['{ __typename }', '{ nope }', '{']) {
        const res = await app.graphql(query, { key: doomed });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    });

    it('checks the key before reading the body', async () => {
      const res = await app.request(GRAPHQL, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(2 * 1024 * 1024) });
      expect(res.status).toBe(401);
    });
  });

  describe('400 BAD_REQUEST for a body that is not a GraphQL request', () => {
    const cases: [string, string, RegExp][] = [
      ['invalid JSON', '{"query":', /not valid JSON/],
      ['an empty body', '', /empty/],
      ['no query', '{"variables":{}}', /no "query"/],
      ['a number query', '{"query":1}', /"query" must be a string/],
      ['an object query', '{"query":{}}', /"query" must be a string/],
      ['a string as variables', '{"query":"{ __typename }","variables":"{}"}', /"variables" must be a JSON object/],
      ['an array as variables', '{"query":"{ __typename }","variables":[]}', /"variables" must be a JSON object/],
      ['a number operationName', '{"query":"{ __typename }","operationName":1}', /"operationName" must be a string/],
      ['a string extensions', '{"query":"{ __typename }","extensions":"x"}', /"extensions" must be a JSON object/],
      ['a batch (JSON array)', '[{"query":"{ __typename }"}]', /Batched requests/],
      ['a JSON string', '"{ __typename }"', /must be a JSON object/],
      ['an unknown operationName', '{"query":"query A { __typename }","operationName":"B"}', /Unknown operation named "B"/],
      ['several operations and no name', '{"query":"query A { __typename } query B { __typename }"}', /name the one to run/],
    ];
    it.each(cases)('%s', async (_name, body, message) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ errors: [{ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } }], data: null });
    });
  });

  describe('invalid documents', () => {
    const invalid: [string, string][] = [
      ['a syntax error', '{ companyBySlug(slug: "acme") { name }'],
      ['an empty query', ''],
      ['an unknown field', '{ nope }'],
      ['a missing argument', '{ companyBySlug { name } }'],
      ['a scalar without selection... a list field without a selection', '{ networksForCompany(companySlug: "acme") }'],
      ['an unknown mutation field', 'mutation { x }'],
      ['a subscription (this API has none)', 'subscription { x }'],
    ];
    it.each(invalid)('%s: 422 with application/json', async (_name, query) => {
      const res = await post(JSON.stringify({ query }));
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body.data).toBeNull();
      expect(res.body.errors.length).toBeGreaterThan(0);
      for (const error of res.body.errors) expect(error.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it.each(invalid)('%s: 400 with application/graphql-response+json', async (_name, query) => {
      const res = await post(JSON.stringify({ query }), { accept: 'application/graphql-response+json' });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
      expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it('carries locations', async () => {
      const res = await post(JSON.stringify({ query: '{\n  nope\n}' }));
      expect(res.body.errors[0]).toEqual({
        message: 'Cannot query field "nope" on type "Query".',
        locations: [{ line: 2, column: 3 }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
    });
  });

  describe('introspection is disabled and messages suggest nothing', () => {
    it.each(['{ __schema { queryType { name } } }', '{ __type(name: "Network") { name } }'])('%s is a validation error', async (query) => {
      const res = await post(JSON.stringify({ query }));
      expect(res.status).toBe(422);
      expect(res.body.errors[0].message).toMatch(/introspection has been disabled/);
      expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it('__typename still works', async () => {
      const res = await post(JSON.stringify({ query: `{ __typename virtualDevice(UUID: "${IDS.acmeAp}") { __typename } }` }));
      expect(res.body).toEqual({ data: { __typename: 'Query', virtualDevice: { __typename: 'VirtualDevice' } } });
    });

    it.each([
      ['a misspelt root field', '{ companyBySlg(slug: "acme") { name } }'],
      ['a misspelt nested field', '{ companyBySlug(slug: "acme") { nam } }'],
      ['a misspelt argument', '{ companyBySlug(slugg: "acme") { name } }'],
      ['a misspelt type in a fragment', '{ ...F } fragment F on Quer { __typename }'],
      ['a misspelt enum-typed variable', 'query ($t: DeviceTyp) { __typename }'],
    ])('no "Did you mean" for %s', async (_name, query) => {
      const res = await post(JSON.stringify({ query }));
      expect(res.status).toBe(422);
      expect(res.text).not.toMatch(/Did you mean/i);
    });
  });

  it('writes the limit headers and Retry-After as Meter does, so a script that reads them from a plain dictionary finds them', async () => {
    // what the public Python SDK does: dict(response.headers).get("X-RateLimit-Remaining"), which only matches the exact case
    const rawNames = async (base: string, apiKey: string): Promise<{ status: number; names: string[] }> =>
      new Promise((resolve, reject) => {
        const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
        const request = http.request(`${base}${GRAPHQL}`, { method: 'POST', headers }, (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, names: response.rawHeaders.filter((_, k) => k % 2 === 0) }));
        });
        request.on('error', reject);
        request.end('{"query":"{ __typename }"}');
      });
    const answered = await rawNames(app.url, key);
    expect(answered.status).toBe(200);
    expect(answered.names).toEqual(expect.arrayContaining(['X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Complexity-Cost', 'X-Complexity-Remaining', 'RateLimit-Policy', 'RateLimit']));
    const limited = await startTestApp(kind, { data: createFixture(), env: { RATE_LIMIT_REQUESTS: '1' } });
    try {
      const oneKey = await limited.createKey('acme');
      expect((await rawNames(limited.url, oneKey)).status).toBe(200);
      const refused = await rawNames(limited.url, oneKey);
      expect(refused.status).toBe(429);
      expect(refused.names).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    } finally {
      await limited.close();
    }
  });

  it('answers other methods with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await app.request(GRAPHQL, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body.errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers other paths with 404 JSON', async () => {
    const res = await app.request('/api/v2/graphql', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ id: 'not_found', status: 404 });
  });

  it('answers 415 for another Content-Type and 413 for a body over 1 MiB', async () => {
    const wrongType = await post('query=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const large = await post(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(1024 * 1024)}` }));
    expect(large.status).toBe(413);
    expect(large.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 406 when neither JSON media type is acceptable', async () => {
    const res = await post('{"query":"{ __typename }"}', { accept: 'text/html' });
    expect(res.status).toBe(406);
  });

  it('puts an X-Request-Id on every response, keeping a valid one the client sent', async () => {
    const ok = await post('{"query":"{ __typename }"}');
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unauthorized = await app.request(GRAPHQL, { method: 'POST' });
    expect(unauthorized.headers.get('x-request-id')).toBeTruthy();
    const mine = await post('{"query":"{ __typename }"}', { 'x-request-id': 'trace-123' });
    expect(mine.headers.get('x-request-id')).toBe('trace-123');
    const hostile = await post('{"query":"{ __typename }"}', { 'x-request-id': 'a b\tc' });
    expect(hostile.headers.get('x-request-id')).not.toBe('a b\tc');
  });

  it('answers 500 with a request id and nothing else when something unexpected breaks', async () => {
    const broken = await startTestApp(kind, { data: createFixture() });
    const brokenKey = await broken.createKey('acme');
    // break the store under the running server: its next query fails in a way no code expects
    // (on PostgreSQL with what references it: device reports' tables do)
    const drop = broken.server.store.db.schema.dropTable('hardware_devices');
    // the running server's own tasks (the offline check, alerts, webhook dispatch) may hold a lock the cascade needs
    // next: PostgreSQL then ends one side with deadlock_detected (40P01), and the drop is tried again
    for (let attempt = 1; ; attempt += 1) {
      try {
        await (kind === 'postgres' ? drop.cascade() : drop).execute();
        break;
      } catch (error) {
        if (attempt >= 5 || (error as { code?: unknown }).code !== '40P01') throw error;
      }
    }
    const res = await broken.graphql(`{ virtualDevice(UUID: "${IDS.acmeAp}") { hardwareDevice { serialNumber } } }`, { key: brokenKey });
    await broken.close();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: res.headers.get('x-request-id') } }],
      data: null,
    });
  });

  it('serves the schema without a key, identical to the committed schema.graphql', async () => {
    const res = await app.request('/api/v1/schema.graphql');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe(fs.readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));
  });

  it('answers health and readiness without a key', async () => {
    expect((await app.request('/healthz')).body).toEqual({ status: 'ok' });
    expect((await app.request('/readyz')).body).toEqual({ status: 'ready' });
  });

  // POST /api/v1/graphql with a JSON body is answered on bare node:http (src/http/routes/graphql.endpoint.ts); the same
  // path with a query string, or another media type, goes through Fastify's route. Both must answer alike.
  describe('the bare route and the Fastify route answer alike', () => {
    const big = JSON.stringify({ query: `{ __typename } # ${'x'.repeat(1024 * 1024)}` });
    const cases: [string, string, Record<string, string>][] = [
      ['a query', JSON.stringify({ query: '{ companyBySlug(slug: "acme") { name networks { slug } } }' }), {}],
      ['a field error', JSON.stringify({ query: '{ virtualDevice(UUID: "00000000-0000-4000-8000-000000000000") { label } }' }), {}],
      ['an invalid document', JSON.stringify({ query: '{ nope }' }), {}],
      ['an invalid document, graphql-response+json', JSON.stringify({ query: '{ nope }' }), { accept: 'application/graphql-response+json' }],
      ['a bad variable', JSON.stringify({ query: 'query Q($s: String!) { companyBySlug(slug: $s) { name } }', variables: { s: 1 } }), {}],
      ['JSON that does not parse', '{"query":', {}],
      ['an empty body', '', {}],
      ['a batch', '[{"query":"{ __typename }"}]', {}],
      ['a query that is not a string', '{"query":1}', {}],
      ['a __proto__ key', '{"__proto__":{"x":1},"query":"{ __typename }"}', {}],
      ['no key', JSON.stringify({ query: '{ __typename }' }), { authorization: '' }],
      ['an Accept it cannot serve', JSON.stringify({ query: '{ __typename }' }), { accept: 'text/html' }],
      ['a body over the limit', big, {}],
    ];
    // the limit headers count down from request to request; the rest must be equal
    const COUNTING = new Set(['date', 'keep-alive', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-complexity-remaining', 'x-complexity-reset', 'ratelimit']);
    const comparable = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => !COUNTING.has(name)));

    it.each(cases)('%s', async (_name, body, headers) => {
      const send = (path: string) =>
        app.request(path, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'same-for-both', ...headers },
          body,
        });
      const bare = await send(GRAPHQL);
      const fastify = await send(`${GRAPHQL}?route=fastify`);
      expect(bare.status).toBe(fastify.status);
      expect(bare.text).toBe(fastify.text);
      expect(comparable(bare.headers)).toEqual(comparable(fastify.headers));
      expect([...bare.headers.keys()].sort()).toEqual([...fastify.headers.keys()].sort());
    });
  });
});

describe('the published contract', () => {
  it('schema.graphql is what the code serves (run `npm run schema` after changing the schema)', () => {
    expect(fs.readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')).toBe(printSchemaReference(createSchema()));
  });

  it('docs/schema.md is generated from the schema', () => {
    expect(fs.readFileSync(new URL('../docs/schema.md', import.meta.url), 'utf8')).toBe(renderSchemaReference(createSchema()));
  });

  it('docs/errors.md has an entry for every error code', () => {
    const doc = fs.readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    for (const code of Object.keys(ERROR_CODES)) expect(doc).toContain(`| \`${code}\` |`);
  });
});
