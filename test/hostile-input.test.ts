import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

/** `value` wrapped in `depth` arrays. */
const nestedArrays = (depth: number, value: unknown = 1): unknown => {
  let nested = value;
  for (let i = 0; i < depth; i += 1) nested = [nested];
  return nested;
};
/** JSON text of `depth` nested arrays, built without JSON.stringify (which recurses). */
const nestedArraysText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const event = (details: unknown) => ({ type: 'TEST_EVENT', observedAt: at(-10), details });

describe.each(storeKinds())('hostile input on %s', (kind) => {
  let app: TestApp;
  let ingestKey: string;
  let readKey: string;
  beforeAll(async () => {
    const clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, env: { MAX_QUERY_TOKENS: '1000000' } });
    ingestKey = await createScopedKey(app, 'ingest');
    readKey = await app.createKey('acme');
  });
  afterAll(async () => {
    await app?.close();
  });

  const storedEventDetails = async () => {
    const response = await app.graphql(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 100) { events { eventTypeAPIName details } } }`, { key: readKey });
    expect(response.status).toBe(200);
    return (response.body.data.recentEventLogEventsPage.events as { eventTypeAPIName: string; details: string }[])
      .filter((e) => e.eventTypeAPIName === 'TEST_EVENT')
      .map((e) => JSON.parse(e.details) as unknown);
  };

  describe('POST /api/v1/reports', () => {
    it('refuses a report whose details nest too deep alone, at its path, and stores the rest of the batch', async () => {
      const batch = [
        report(SERIALS.acmeAp, at(-5), { events: [event({ batch: 'deep', n: 0 })] }),
        report(SERIALS.acmeAp, at(-4), { events: [event({ batch: 'deep', n: 1, nested: nestedArrays(40) })] }),
        report(SERIALS.acmeSwitch, at(-3), { events: [event({ batch: 'deep', n: 2, nested: nestedArrays(30) })] }),
      ];
      const response = await postReports(app, ingestKey, batch);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        accepted: 2,
        duplicates: 0,
        rejected: [{ index: 1, code: 'BAD_USER_INPUT', path: 'reports[1].events[0].details', message: 'nests arrays and objects deeper than 32 levels' }],
      });
      const stored = (await storedEventDetails()).filter((d) => (d as { batch?: string }).batch === 'deep');
      expect(stored.map((d) => (d as { n: number }).n).sort()).toEqual([0, 2]);
    });

    it('answers a body nested deeper than 512 levels with a 400 saying so, never a 500', async () => {
      // the fuzz's find: 4,100 levels inside an event's details (an 8 KiB body) overflowed JSON.stringify
      const deep = `{"reports":[{"reportId":"r","serialNumber":"${SERIALS.acmeAp}","observedAt":"${at(-5)}","events":[{"type":"TEST_EVENT","observedAt":"${at(-6)}","details":{"x":${nestedArraysText(4100)}}}]}]}`;
      for (const body of [deep, `{"reports":${nestedArraysText(100_000)}}`]) {
        const response = await postReports(app, ingestKey, body);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          errors: [{ message: 'The request body nests arrays and objects deeper than 512 levels: send a flatter body.', extensions: { code: 'BAD_REQUEST' } }],
          data: null,
        });
      }
    });

    it('refuses a report holding a prototype key alone, naming the key and its path', async () => {
      const text = JSON.stringify({
        reports: [
          report(SERIALS.acmeAp, at(-5), { events: [event({ batch: 'proto', n: 0 })] }),
          report(SERIALS.acmeAp, at(-4), { events: [event({ batch: 'proto', n: 1, PROTO: { polluted: true } })] }),
          report(SERIALS.acmeSwitch, at(-3), { interfaces: [{ portNumber: 1, CTOR: { prototype: { polluted: true } } }] }),
          report(SERIALS.acmeSwitch, at(-2), { events: [event({ batch: 'proto', n: 3, constructor: 'only a name' })] }),
        ],
      })
        .replace('"PROTO"', '"__proto__"')
        .replace('"CTOR"', '"constructor"');
      const response = await postReports(app, ingestKey, text);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        accepted: 2,
        duplicates: 0,
        rejected: [
          {
            index: 1,
            code: 'BAD_USER_INPUT',
            path: 'reports[1].events[0].details',
            message: 'The key "__proto__" in reports[1].events[0].details is refused: keys that name an object\'s prototype are not accepted; rename it.',
          },
          {
            index: 2,
            code: 'BAD_USER_INPUT',
            path: 'reports[2].interfaces[0]',
            message: 'The key "constructor" in reports[2].interfaces[0] is refused: keys that name an object\'s prototype are not accepted; rename it.',
          },
        ],
      });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const stored = (await storedEventDetails()).filter((d) => (d as { batch?: string }).batch === 'proto');
      expect(stored.map((d) => JSON.stringify(d)).sort()).toEqual(['{"batch":"proto","n":0}', '{"batch":"proto","n":3,"constructor":"only a name"}']);
    });

    it('answers a prototype key outside the reports with a 400 that names it', async () => {
      const body = `{"__proto__":{"polluted":true},"reports":[${JSON.stringify(report(SERIALS.acmeAp, at(-1)))}]}`;
      const response = await postReports(app, ingestKey, body);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        { message: 'The key "__proto__" at the top level is refused: keys that name an object\'s prototype are not accepted; rename it.', extensions: { code: 'BAD_REQUEST' } },
      ]);
    });
  });

  describe('POST /api/v1/graphql', () => {
    // the bare endpoint takes application/json; a query string sends the same request through Fastify's route
    for (const route of ['/api/v1/graphql', '/api/v1/graphql?via=fastify']) {
      const post = (body: string) =>
        app.request(route, { method: 'POST', headers: { authorization: `Bearer ${readKey}`, 'content-type': 'application/json' }, body });

      it(`answers a list literal nested 5,000 deep with a validation error naming the limit (${route})`, async () => {
        const query = `{ networkClients(networkUUID: ${nestedArraysText(5000)}) { macAddress } }`;
        const response = await post(JSON.stringify({ query }));
        expect(response.status).toBe(422);
        expect(response.body).toEqual({
          errors: [
            {
              message: 'Syntax Error: The document nests list and object values deeper than the limit of 64 levels.',
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_VALUE_NESTING', limitValue: 64 },
            },
          ],
          data: null,
        });
      });

      it(`answers selections nested 5,000 deep with the depth limit, never a RangeError (${route})`, async () => {
        const query = `{ ${'companyBySlug(slug: "acme") { '.repeat(5000)}name${' }'.repeat(5000)} }`;
        const response = await post(JSON.stringify({ query }));
        expect(response.status).toBe(422);
        expect(response.body.errors).toEqual([
          { message: 'The operation is nested deeper than the limit of 12 levels.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_DEPTH', limitValue: 12 } },
        ]);
      });

      it(`counts no brackets inside strings, block strings and comments (${route})`, async () => {
        const brackets = '[{('.repeat(100);
        const query = `# ${brackets}\n{ a: companyBySlug(slug: "acme\\"${brackets}") { name } b: companyBySlug(slug: """x\\"""${brackets}""") { name } }`;
        const response = await post(JSON.stringify({ query }));
        // parsed and run: each slug is refused as a slug, not the document as too deep
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual({ a: null, b: null });
        expect(response.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT']);
      });

      it(`answers variables nested deeper than 512 levels with a 400 (${route})`, async () => {
        const body = `{"query":"query($id: UUID!) { network(UUID: $id) { label } }","variables":{"id":${nestedArraysText(600)}}}`;
        const response = await post(body);
        expect(response.status).toBe(400);
        expect(response.body.errors).toEqual([
          { message: 'The request body nests arrays and objects deeper than 512 levels: send a flatter body.', extensions: { code: 'BAD_REQUEST' } },
        ]);
      });

      it(`answers a prototype key in variables, extensions or the body with a 400 that names it (${route})`, async () => {
        const query = JSON.stringify('query($filter: NetworkClientsFilter) { networkClients(networkUUID: "x", filter: $filter) { macAddress } }');
        const cases = [
          [`{"query":${query},"variables":{"filter":{"__proto__":{"isAdmin":true}}}}`, 'The key "__proto__" in variables.filter is refused'],
          [`{"query":${query},"extensions":{"a":[{"constructor":{"prototype":{}}}]}}`, 'The key "constructor" in extensions.a[0] is refused'],
          [`{"__proto__":{"query":"{ __typename }"},"query":"{ __typename }"}`, 'The key "__proto__" at the top level is refused'],
        ] as const;
        for (const [body, start] of cases) {
          const response = await post(body);
          expect(response.status).toBe(400);
          expect(response.body.errors).toEqual([
            { message: `${start}: keys that name an object's prototype are not accepted; rename it.`, extensions: { code: 'BAD_REQUEST' } },
          ]);
        }
      });
    }
  });

  describe('netgraph import', () => {
    const importFile = async (name: string, text: string) => {
      const file = path.join(os.tmpdir(), `netgraph-hostile-${process.pid}-${name}.json`);
      await writeFile(file, text);
      return runNetgraph(['import', file], { DATABASE_URL: app.database.url });
    };

    it('refuses a file nested deeper than 512 levels, and one holding a prototype key, naming where', async () => {
      const deep = await importFile('deep', `{"companies":${nestedArraysText(20_000)}}`);
      expect(deep.code).not.toBe(0);
      expect(deep.stderr).toContain('is not valid JSON: it nests arrays and objects deeper than 512 levels');
      expect(deep.stderr).not.toContain('RangeError');

      const proto = await importFile('proto', '{"companies":[{"slug":"x","name":"X","networks":[{"__proto__":{}}]}]}');
      expect(proto.code).not.toBe(0);
      expect(proto.stderr).toContain('$.companies[0].networks[0].__proto__');
      expect(proto.stderr).toContain("is a key that names an object's prototype, which is refused: rename it");
    });
  });
});
