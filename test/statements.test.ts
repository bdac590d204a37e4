import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDialect } from '../src/db/dialect.js';
import type { DialectName } from '../src/db/dialect.js';
import { generateDataset } from '../src/tools/demo/dataset.js';
import { compileDocument } from '../src/engine/compile.js';
import { FEATURES } from '../src/engine/features.js';
import { createSchema } from '../src/engine/schema.js';
import type { CompiledRead } from '../src/engine/read.repository.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { NESTED_COMPANY_QUERY, ROOT_QUERIES } from './helpers/root-queries.js';
import { storeKinds } from './helpers/stores.js';

const NESTED = NESTED_COMPANY_QUERY;
const SEED_QUERIES = ROOT_QUERIES;

describe.each(storeKinds())('SQL statements per request on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    const small = generateDataset({ companies: 1, networksPerCompany: 2, devicesPerNetwork: 2, clientsPerNetwork: 2, seed: 1, slugPrefix: 'small' });
    const big = generateDataset({ companies: 1, networksPerCompany: 60, devicesPerNetwork: 15, clientsPerNetwork: 10, seed: 2, slugPrefix: 'big' });
    // background work (webhook polling, offline checks) would land inside the counts; every root bundled in one
    // document costs more than the default limit of one operation, and takes more aliases than the default 50
    app = await startTestApp(kind, {
      data: { companies: [...small.companies, ...big.companies] },
      backgroundWork: false,
      env: { COMPLEXITY_LIMIT: '100000', MAX_QUERY_ALIASES: '200' },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  async function statementsFor(query: string, key: string): Promise<number> {
    // the last-used writer runs on a timer; write what is pending now so it cannot land inside the count
    await app.server.services.apiKeys.flushLastUsed();
    const before = app.server.store.stats.statements;
    const res = await app.graphql(query, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return app.server.store.stats.statements - before;
  }

  it('runs one statement for the full nested company, with 2 networks or 60', async () => {
    const smallKey = await app.createKey('small-1');
    const bigKey = await app.createKey('big-1');
    // the first request of a key also looks the key up once
    await statementsFor('{ __typename }', smallKey);
    await statementsFor('{ __typename }', bigKey);
    const small = await statementsFor(NESTED.replace('$SLUG', 'small-1'), smallKey);
    const big = await statementsFor(NESTED.replace('$SLUG', 'big-1'), bigKey);
    expect(small).toBe(1);
    expect(big).toBe(small);
    const res = await app.graphql(NESTED.replace('$SLUG', 'big-1'), { key: bigKey });
    expect(res.body.data.companyBySlug.networks).toHaveLength(60);
    expect(res.body.data.companyBySlug.networks[0].virtualDevices).toHaveLength(15);
  });

  it('runs one statement for every seed query, and one for all of them bundled', async () => {
    const key = await app.createKey('big-1');
    await statementsFor('{ __typename }', key);
    const ids = await app.graphql(
      '{ companyBySlug(slug: "big-1") { uuid networks { UUID slug vlans { UUID } ssids { UUID } virtualDevices { UUID hardwareDevice { serialNumber } } } } }',
      { key },
    );
    const company = ids.body.data.companyBySlug;
    const network = company.networks[0];
    const device = network.virtualDevices.find((d: { hardwareDevice: unknown }) => d.hardwareDevice);
    const { webhooks, alerts } = app.server.services;
    const caller = await webhooks.cliCaller('big-1');
    const { endpoint } = await webhooks.createEndpoint(caller, { label: 'hook', url: 'https://hooks.example.com/x', rules: [{ alert: 'WAN_UP' }] });
    const receiver = await alerts.createReceiver(caller, { label: 'NOC', targets: [{ type: 'WEBHOOK', webhookEndpointId: endpoint.id }], rules: [{ alert: 'DEVICE_OFFLINE' }] });
    const target = await app.server.services.collectorTargets.create(caller, { virtualDeviceUUID: device.UUID, host: '192.0.2.10', snmp: { version: '2c', community: 'public' } });
    const range = await app.server.services.collectorRanges.create(caller, { range: '192.0.2.0/24', snmp: { version: '2c', community: 'public' } });
    const fill = (q: string) =>
      q
        .replace('$TARGET', target.UUID)
        .replace('$RANGE', range.UUID)
        .replace('$RECEIVER', receiver.id)
        .replace('$SLUG', 'big-1')
        .replace('$NETSLUG', network.slug)
        .replace('$COMPANY', company.uuid)
        .replace('$NETWORK', network.UUID)
        .replace('$DEVICE', device.UUID)
        .replace('$SERIAL', device.hardwareDevice.serialNumber)
        .replace('$VLAN', network.vlans[0]?.UUID ?? network.UUID)
        .replace('$SSID', network.ssids[0]?.UUID ?? network.UUID);
    for (const query of Object.values(SEED_QUERIES)) expect(await statementsFor(fill(query), key)).toBe(1);
    const bundled = `{ ${Object.values(SEED_QUERIES)
      .map((q, i) => `q${i}: ${fill(q).slice(1, -1)}`)
      .join(' ')} }`;
    expect(await statementsFor(bundled, key)).toBe(1);
  });

  it('runs one statement for networksClients over 1 network or 60', async () => {
    const key = await app.createKey('big-1');
    await statementsFor('{ __typename }', key);
    const ids = await app.graphql('{ companyBySlug(slug: "big-1") { uuid networks { UUID } } }', { key });
    const company = ids.body.data.companyBySlug;
    const networks = company.networks.map((network: { UUID: string }) => network.UUID);
    const query = (some: readonly string[]) => `{ networksClients(companyUUID: "${company.uuid}", networkUUIDs: ${JSON.stringify(some)}) { macAddress networkUUID } }`;
    expect(await statementsFor(query(networks.slice(0, 1)), key)).toBe(1);
    expect(await statementsFor(query(networks), key)).toBe(1);
    const all = await app.graphql(query(networks), { key });
    expect(all.body.data.networksClients).toHaveLength(600);
  });
});

describe('the SQL of the six seed queries (a snapshot: an N+1 or a scoping change shows up as a diff)', () => {
  const schema = createSchema();

  function compile(dialect: DialectName, template: string): CompiledRead {
    const query = template
      .replace('$SLUG', 'acme')
      .replace('$RECEIVER', '77777777-7777-4777-8777-777777777771')
      .replace('$TARGET', '77777777-7777-4777-8777-777777777772')
      .replace('$RANGE', '77777777-7777-4777-8777-777777777773')
      .replace('$NETWORK', '11111111-1111-4111-8111-111111111111')
      .replace('$DEVICE', '22222222-2222-4222-8222-222222222222')
      .replace('$SERIAL', 'M1A3-AP00-0001')
      .replace('$NETSLUG', 'hq')
      .replace('$COMPANY', '00000000-0000-4000-8000-00000000000a')
      .replace('$VLAN', '55555555-5555-4555-8555-555555555551')
      .replace('$SSID', '66666666-6666-4666-8666-666666666661');
    return compileDocument(schema, FEATURES, getDialect(dialect), query);
  }

  it.each(['sqlite', 'postgres'] as const)('%s', async (dialect) => {
    const text = Object.entries(SEED_QUERIES)
      .map(([name, query]) => {
        const compiled = compile(dialect, query);
        const batch = compiled.batchText === undefined ? '' : `\n-- ${name}, several callers at once\n${compiled.batchText};\n`;
        return `-- ${name}\n${compiled.text};\n${batch}`;
      })
      .join('\n');
    await expect(text).toMatchFileSnapshot(`./__snapshots__/seed-queries.${dialect}.sql`);
    for (const query of Object.values(SEED_QUERIES)) {
      const compiled = compile(dialect, query);
      // every root is scoped by the caller's company, in both forms (the company is the root's last parameter)
      const company = compiled.slots.findIndex((slot) => slot.kind === 'company') + 1;
      expect(company).toBeGreaterThan(0);
      expect(compiled.text).toMatch(new RegExp(`company_id = (\\$${company}|\\?)|\\.id = (\\$${company}|\\?)`));
      if (compiled.batchText !== undefined) expect(compiled.batchText).toMatch(new RegExp(`company_id = batch\\.p${company}|\\.id = batch\\.p${company}`));
      // only PostgreSQL coalesces reads, and not those with a list parameter
      expect(compiled.batchText === undefined).toBe(dialect === 'sqlite' || compiled.slots.some((slot) => slot.type.endsWith('[]')));
    }
  });
});
