import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../src/tools/demo/dataset.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp, TestResponse } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const GRAPHQL = '/api/v1/graphql';

function codes(res: TestResponse): string[] {
  return (res.body?.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
}

/** A document `depth` fields deep. The schema is only 5 deep, so the fields do not exist: the depth rule reports anyway. */
function documentOfDepth(depth: number): string {
  return `{ ${'a { '.repeat(depth - 1)}b${' }'.repeat(depth)}`;
}

describe.each(storeKinds())('request limits on %s', (kind) => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    key = await app.createKey('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
    app.request(GRAPHQL, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body,
    });

  describe('the body', () => {
    it('answers a body over 1 MiB with 413 and a JSON error', async () => {
      const res = await post(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(1024 * 1024)}` }));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        errors: [{ message: expect.stringContaining('larger than the limit of 1048576 bytes'), extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
        data: null,
      });
    });

    it('answers a Content-Type other than application/json with 415', async () => {
      for (const type of ['text/plain', 'application/graphql', 'application/x-www-form-urlencoded']) {
        const res = await post('{"query":"{ __typename }"}', { 'content-type': type });
        expect(res.status).toBe(415);
        expect(codes(res)).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
      }
    });

    it('refuses batched operations (a JSON array) with a clear 400', async () => {
      const res = await post(JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]));
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toEqual({
        message: 'Batched requests (a JSON array) are not supported: send one operation per request.',
        extensions: { code: 'BAD_REQUEST' },
      });
    });

    it('checks the API key before reading the body: no key answers 401 whatever the body', async () => {
      for (const body of ['{"query": not json', JSON.stringify({ query: 'x'.repeat(2 * 1024 * 1024) }), '[1,2,3]']) {
        const res = await app.request(GRAPHQL, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ title: 'Unauthorized. Please include your API credentials', id: 'unauthorized', status: 401 });
      }
    });
  });

  describe('the document', () => {
    it('answers a document deeper than 12 levels with a validation error naming the limit', async () => {
      const depthErrors = (res: TestResponse) =>
        res.body.errors.filter((e: { extensions: { limit?: string } }) => e.extensions.limit === 'MAX_QUERY_DEPTH');
      const twelve = await app.graphql(documentOfDepth(12), { key });
      expect(twelve.status).toBe(422);
      expect(depthErrors(twelve)).toEqual([]);
      const thirteen = await app.graphql(documentOfDepth(13), { key });
      expect(thirteen.status).toBe(422);
      expect(depthErrors(thirteen)).toEqual([
        {
          message: 'The operation is nested deeper than the limit of 12 levels.',
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_DEPTH', limitValue: 12 },
        },
      ]);
    });

    it('counts depth across fragments, and names the configured limit', async () => {
      const shallow = await startTestApp(kind, { data: createFixture(), env: { MAX_QUERY_DEPTH: '3' } });
      try {
        const k = await shallow.createKey('acme');
        const ok = await shallow.graphql('{ companyBySlug(slug: "acme") { networks { UUID } } }', { key: k });
        expect(ok.status).toBe(200);
        const res = await shallow.graphql(
          '{ companyBySlug(slug: "acme") { ...N } } fragment N on Company { networks { virtualDevices { UUID } } }',
          { key: k },
        );
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([
          {
            message: 'The operation is nested deeper than the limit of 3 levels.',
            locations: [{ line: 1, column: 1 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_DEPTH', limitValue: 3 },
          },
        ]);
      } finally {
        await shallow.close();
      }
    });

    it('answers more than 50 aliases with a validation error naming the limit', async () => {
      const fifty = Array.from({ length: 50 }, (_, i) => `a${i}: __typename`).join(' ');
      expect((await app.graphql(`{ ${fifty} }`, { key })).status).toBe(200);
      const res = await app.graphql(`{ ${fifty} one_more: __typename }`, { key });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        {
          message: 'The document has more than the limit of 50 aliases.',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_ALIASES', limitValue: 50 },
        },
      ]);
    });

    it('answers more than 50 directives with a validation error naming the limit', async () => {
      const fifty = '__typename @include(if: true) '.repeat(50);
      expect((await app.graphql(`{ ${fifty} }`, { key })).status).toBe(200);
      const res = await app.graphql(`{ ${fifty} __typename @skip(if: false) }`, { key });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{
        message: 'The document has more than the limit of 50 directives.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_DIRECTIVES', limitValue: 50 },
      }]);
    });

    it('answers more than 5000 tokens with a syntax error naming the limit', async () => {
      const res = await app.graphql(`{ ${'__typename '.repeat(5000)} }`, { key });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        {
          message: 'Syntax Error: The document has more than the limit of 5000 tokens.',
          locations: [{ line: 1, column: expect.any(Number) }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_TOKENS', limitValue: 5000 },
        },
      ]);
    });
  });

  describe('arguments', () => {
    it('answers a malformed UUID or slug with BAD_USER_INPUT naming the argument, never a database error', async () => {
      const uuid = await app.graphql('{ virtualDevicesForNetwork(networkUUID: "1234") { UUID } }', { key });
      expect(uuid.status).toBe(422);
      expect(uuid.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'networkUUID' });

      const slug = await app.graphql('query ($s: String!) { networksForCompany(companySlug: $s) { UUID } }', {
        key,
        variables: { s: "acme'; DROP TABLE companies; --" },
      });
      expect(slug.status).toBe(200);
      expect(slug.body).toEqual({
        errors: [
          {
            message: expect.stringContaining('Argument "companySlug" of "networksForCompany" has an invalid value'),
            locations: [{ line: 1, column: 23 }],
            path: ['networksForCompany'],
            extensions: { code: 'BAD_USER_INPUT', argument: 'companySlug' },
          },
        ],
        data: { networksForCompany: null },
      });
      expect((await app.graphql('{ companyBySlug(slug: "acme") { slug } }', { key })).body.data.companyBySlug.slug).toBe('acme');
    });
  });
});

describe.each(storeKinds())('request timeout on %s', (kind) => {
  const dataset = generateDataset({ companies: 1, networksPerCompany: 1, devicesPerNetwork: 1, clientsPerNetwork: 10_000, seed: 7, slugPrefix: 'big' });
  const network = dataset.companies[0]?.networks[0]?.UUID as string;
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: dataset, env: { REQUEST_TIMEOUT_MS: '100' } });
    key = await app.createKey('big-1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers a query that runs longer than REQUEST_TIMEOUT_MS with 504 TIMEOUT in the GraphQL shape', async () => {
    // twenty times every client of a 10,000-client network: most of a second of database work or more, on either
    // store; a busy machine only makes it slower (the PostgreSQL test below shows the pool is fine afterwards)
    const query = `{ ${Array.from({ length: 20 }, (_, i) => `c${i}: networkClients(networkUUID: "${network}") { macAddress ip lastSeen }`).join(' ')} }`;
    const res = await app.graphql(query, { key });
    expect(res.status).toBe(504);
    expect(res.body).toEqual({
      errors: [{ message: 'The query took longer than the request timeout and was cancelled.', extensions: { code: 'TIMEOUT' } }],
      data: null,
    });
  });
});

describe.runIf(storeKinds().includes('postgres'))('request timeout cancels the statement on postgres', () => {
  let app: TestApp;
  let locker: pg.Client;
  beforeAll(async () => {
    app = await startTestApp('postgres', { data: createFixture(), env: { REQUEST_TIMEOUT_MS: '1000' } });
    locker = new pg.Client({ connectionString: app.database.url });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await app?.close();
  });

  it('cancels a statement still running at the deadline before it answers TIMEOUT', async () => {
    // the read waits on this lock for as long as it is held: it can only end by being cancelled
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE network_clients IN ACCESS EXCLUSIVE MODE');
    try {
      const res = await app.graphql(`{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress } }`);
      expect(res.status).toBe(504);
      expect(res.body.errors[0].extensions.code).toBe('TIMEOUT');
      const waiting = await locker.query(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'network_clients'::regclass AND NOT granted`);
      expect(waiting.rows[0].n).toBe(0);
    } finally {
      await locker.query('ROLLBACK');
    }
    const after = await app.graphql(`{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress } }`);
    expect(after.status).toBe(200);
    expect(after.body.data.networkClients).toHaveLength(3);
  });
});
