import { parse } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDialect } from '../src/db/dialect.js';
import { compileDocument } from '../src/engine/compile.js';
import { DocumentCache } from '../src/engine/document.js';
import { measureDocumentCosts, measureOperationCost } from '../src/engine/complexity.js';
import { createExecutor } from '../src/engine/execute.js';
import { FEATURES } from '../src/engine/features.js';
import { buildReadModel } from '../src/engine/read-model.js';
import { createSchema } from '../src/engine/schema.js';
import type { Caller } from '../src/kernel/caller.js';
import { integer, text } from '../src/engine/read.model.js';
import type { ArgumentValues, GraphQLFeature } from '../src/engine/read.model.js';
import { createReadService } from '../src/engine/read.service.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { IDS, createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

const ACME = '00000000-0000-4000-8000-00000000000a';
const GLOBEX = '00000000-0000-4000-8000-00000000000b';

const windowOf = (args: ArgumentValues) => args.window as { durationSeconds: number; stepSeconds: number; endTime: string | null };

/**
 * A feature that exercises what the read model offers roots beyond a row
 * looked up by one argument: several arguments (a list of UUIDs, an input
 * object, a Boolean with a default), a root's own rule, a value root built
 * from an aggregated subquery, a derived table with parameters, a computed
 * parameter and an argument-dependent list size.
 */
const TALLY: GraphQLFeature = {
  sdl: /* GraphQL */ `
input TallyWindow { durationSeconds: Int! stepSeconds: Int! endTime: DateTime }
type NetworkTally { networks: Int! buckets: Int! firstLabel: String! endTime: DateTime! onlyActive: Boolean! labels: [TallyLabel!]! }
type TallyLabel { label: String! }
extend type Query {
  networkTally(companyUUID: UUID!, networkUUIDs: [UUID!]!, window: TallyWindow!, onlyActive: Boolean = false): NetworkTally
}
`,
  readModel: {
    NetworkTally: {
      networks: integer('n'),
      buckets: integer('buckets'),
      firstLabel: text('first_label'),
      endTime: { kind: 'computed', type: 'datetime', sql: (_t, c) => c.arg('window.endTime') },
      onlyActive: { kind: 'computed', type: 'boolean', sql: (_t, c) => c.arg('onlyActive') },
      labels: {
        kind: 'list',
        table: (c) => `(SELECT id, label FROM networks WHERE ${c.dialect.inList('uuid', c.arg('networkUUIDs'))})`,
        join: (l) => `${l}.id IS NOT NULL`,
        orderBy: (l) => `${l}.label`,
      },
    },
    TallyLabel: { label: text('label') },
  },
  roots: {
    networkTally: {
      kind: 'value',
      arguments: [
        { name: 'companyUUID', type: 'uuid' },
        { name: 'networkUUIDs', type: 'uuidList' },
        {
          name: 'window',
          type: 'input',
          fields: [
            { name: 'durationSeconds', type: 'int' },
            { name: 'stepSeconds', type: 'int' },
            { name: 'endTime', type: 'datetime', default: '2026-01-01T00:00:00.000Z' },
          ],
        },
        { name: 'onlyActive', type: 'boolean' },
      ],
      check: (args) =>
        windowOf(args).stepSeconds < 60 ? { argument: 'window.stepSeconds', message: 'must be at least 60 seconds: ask for a longer step.' } : undefined,
      // null unless every network named is the caller's company's (and the company too)
      json: (c, selection) => {
        const d = c.dialect;
        return (
          `(SELECT CASE WHEN s.n = (SELECT count(DISTINCT l.value) FROM ${d.listRows(c.arg('networkUUIDs'), 'l')}) ` +
          `AND EXISTS (SELECT 1 FROM companies co WHERE co.uuid = ${c.arg('companyUUID')} AND co.id = ${c.company()}) ` +
          `THEN ${c.object(selection, 's')} END FROM (SELECT count(*) AS n, min(label) AS first_label, ` +
          `${c.value('integer', (args) => Math.ceil(windowOf(args).durationSeconds / windowOf(args).stepSeconds))} AS buckets ` +
          `FROM networks WHERE ${d.inList('uuid', c.arg('networkUUIDs'))} AND company_id = ${c.company()} ` +
          `AND (is_active OR NOT ${c.arg('onlyActive')})) s)`
        );
      },
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: { 'NetworkTally.labels': (args) => (args === undefined ? 100 : (args.networkUUIDs as unknown[]).length) },
};

const QUERY = (networks: readonly string[], company = ACME, step = 300) =>
  `{ networkTally(companyUUID: "${company}", networkUUIDs: ${JSON.stringify(networks)}, window: { durationSeconds: 3600, stepSeconds: ${step} }) ` +
  `{ networks buckets firstLabel endTime onlyActive labels { label } } }`;

describe('root arguments, value roots and list sizes', () => {
  const schema = createSchema([...FEATURES, TALLY] as unknown as Parameters<typeof createSchema>[0]);

  it('prices a list by the size its feature declares from the root arguments', () => {
    const costs = (query: string) => [...measureDocumentCosts(schema, parse(query)).operations.values()][0];
    // 1 (object) + 6 leaves' worth: 5 scalars + labels (2 + size × 1)
    expect(costs(QUERY([IDS.acmeHq, IDS.acmeLab]))).toBe(1 + 5 + 2 + 2 * 1);
    expect(costs(QUERY([IDS.acmeHq]))).toBe(1 + 5 + 2 + 1 * 1);
    // a variable: the assumed 5 before validation, and the operation is priced again per request with its variables
    const withVariable = `query ($n: [UUID!]!) { networkTally(companyUUID: "${ACME}", networkUUIDs: $n, window: { durationSeconds: 1, stepSeconds: 60 }) { labels { label } } }`;
    const document = parse(withVariable);
    const measured = measureDocumentCosts(schema, document);
    const operation = [...measured.operations.keys()][0] as OperationDefinitionNode;
    expect(measured.operations.get(operation)).toBe(1 + 2 + 5);
    expect(measured.variablePriced.has(operation)).toBe(true);
    expect(measureOperationCost(schema, operation, new Map(), { n: [IDS.acmeHq, IDS.acmeLab, IDS.acmeHq] })).toBe(1 + 2 + 3);
    expect(measured.variablePriced.size).toBe(1);
    expect(measureDocumentCosts(schema, parse(QUERY([IDS.acmeHq]))).variablePriced.size).toBe(0);
  });

  it('compiles list parameters per dialect, and leaves a statement with one out of the batch form', () => {
    const features = [...FEATURES, TALLY] as unknown as Parameters<typeof compileDocument>[1];
    const postgres = compileDocument(schema, features, getDialect('postgres'), QUERY([IDS.acmeHq]));
    expect(postgres.text).toMatch(/uuid = ANY\(\$\d+::uuid\[\]\)/);
    expect(postgres.text).toMatch(/NOT \$\d+::boolean/);
    expect(postgres.batchText).toBeUndefined();
    const sqlite = compileDocument(schema, features, getDialect('sqlite'), QUERY([IDS.acmeHq]));
    expect(sqlite.text).toContain('uuid IN (SELECT value FROM json_each(?))');
    expect(compileDocument(schema, features, getDialect('postgres'), `{ virtualDevice(UUID: "${IDS.acmeAp}") { UUID } }`).batchText).toContain('unnest(');
  });
});

describe.each(storeKinds())('root arguments and value roots on %s', (kind) => {
  let app: TestApp;
  let run: (query: string, variables?: Record<string, unknown>) => Promise<{ data: Record<string, unknown>; errors?: { message: string; path: string[]; extensions: Record<string, unknown> }[] }>;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    const schema = createSchema([...FEATURES, TALLY] as unknown as Parameters<typeof createSchema>[0]);
    const model = buildReadModel([...FEATURES, TALLY] as unknown as Parameters<typeof buildReadModel>[0]);
    const reads = createReadService(app.server.store, model, { now: () => new Date(), offlineAfterSeconds: 300 });
    const executor = createExecutor({ schema, documents: new DocumentCache(schema, { maxTokens: 5000, maxDepth: 12, maxAliases: 50, maxDirectives: 50 }, 10000), reads });
    const row = await app.server.store.selectRow(`SELECT id FROM companies WHERE slug = 'acme'`, []);
    const caller: Caller = { companyId: Number(row?.id), companySlug: 'acme', keyId: null, keyUuid: null, label: 'test', scope: 'read' };
    run = async (query, variables = {}) => {
      const operation = executor.prepare({ query, variables, operationName: null }, caller);
      if (operation.kind !== 'ready') throw new Error(JSON.stringify(operation.errors));
      return JSON.parse((await operation.run()).body);
    };
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers a value root with its arguments, a list parameter and a derived table', async () => {
    const body = await run(QUERY([IDS.acmeHq, IDS.acmeLab, IDS.acmeHq]));
    expect(body).toEqual({
      data: {
        networkTally: {
          networks: 2,
          buckets: 12,
          firstLabel: expect.any(String),
          endTime: '2026-01-01T00:00:00.000Z',
          onlyActive: false,
          labels: [expect.objectContaining({ label: expect.any(String) }), expect.objectContaining({ label: expect.any(String) })],
        },
      },
    });
  });

  it('takes the arguments as variables too, and a given endTime over the default', async () => {
    const query = `query ($ids: [UUID!]!, $w: TallyWindow!) { networkTally(companyUUID: "${ACME}", networkUUIDs: $ids, window: $w, onlyActive: true) { networks buckets endTime onlyActive } }`;
    const body = await run(query, { ids: [IDS.acmeHq], w: { durationSeconds: 600, stepSeconds: 60, endTime: '2026-02-03T04:05:06+01:00' } });
    expect(body).toEqual({ data: { networkTally: { networks: 1, buckets: 10, endTime: '2026-02-03T03:05:06.000Z', onlyActive: true } } });
  });

  it('answers null with UNAUTHORIZED naming the arguments when any id is another company', async () => {
    for (const query of [QUERY([IDS.acmeHq, IDS.globexHq]), QUERY([IDS.acmeHq], GLOBEX)]) {
      const body = await run(query);
      expect(body.data).toEqual({ networkTally: null });
      expect(body.errors?.map((e) => [e.path, e.extensions.code, e.message])).toEqual([
        [['networkTally'], 'UNAUTHORIZED', 'Not found, or not accessible with this API key: networkTally(companyUUID, networkUUIDs).'],
      ]);
    }
  });

  it("refuses arguments against the root's rule before the database, naming the argument", async () => {
    const body = await run(`{ a: ${QUERY([IDS.acmeHq], ACME, 30).slice(1, -1)} }`);
    expect(body.data).toEqual({ a: null });
    expect(body.errors?.map((e) => [e.path, e.extensions])).toEqual([[['a'], { code: 'BAD_USER_INPUT', argument: 'window.stepSeconds' }]]);
    expect(body.errors?.[0]?.message).toBe('Argument "window.stepSeconds" of "networkTally" is not accepted: must be at least 60 seconds: ask for a longer step.');
  });
});
