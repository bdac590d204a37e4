import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../src/tools/demo/dataset.js';
import type { ImportDocument } from '../src/platform/import/import.schema.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { createTestDatabase, storeKinds } from './helpers/stores.js';
import type { StoreKind } from './helpers/stores.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-import-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeJson(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

async function countRows(app: TestApp): Promise<number> {
  const { db } = app.server.store;
  let total = 0;
  for (const table of ['companies', 'networks', 'virtual_devices', 'hardware_devices', 'vlans', 'ssids', 'network_clients'] as const) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    total += Number(row.n);
  }
  return total;
}

describe.each(storeKinds())('netgraph import on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('loads a file and reports what it wrote', async () => {
    const result = await runNetgraph(['import', writeJson(`ok-${kind}.json`, createFixture()), '--json'], { DATABASE_URL: app.database.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      companies: 2,
      networks: 4,
      virtualDevices: 5,
      hardwareDevices: 5,
      vlans: 4,
      ssids: 3,
      clients: 5,
    });
    const res = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeAp}") { hardwareDevice { serialNumber } } }`);
    expect(res.body.data.virtualDevice.hardwareDevice.serialNumber).toBe(SERIALS.acmeAp);
  });

  it.each([
    ['a VLAN id out of range', (d: ImportDocument): unknown => (d.companies[0]!.networks[0]!.vlans[0]!.vlanID = 5000), '$.companies[0].networks[0].vlans[0].vlanID', /5000 is not valid: expected a whole number from 1 to 4094/],
    ['a malformed MAC', (d: ImportDocument): unknown => (d.companies[0]!.networks[0]!.clients[0]!.macAddress = '0C-8D-DB-12-34-56'), '$.companies[0].networks[0].clients[0].macAddress', /not valid: expected a lowercase colon-separated MAC/],
    ['a malformed UUID', (d: ImportDocument): unknown => (d.companies[0]!.networks[1]!.UUID = 'nope'), '$.companies[0].networks[1].UUID', /"nope" is not valid/],
    ['a malformed timestamp', (d: ImportDocument): unknown => (d.companies[0]!.networks[0]!.clients[1]!.lastSeen = 'yesterday'), '$.companies[0].networks[0].clients[1].lastSeen', /not an RFC 3339 timestamp/],
    ['an unknown device type', (d: ImportDocument): unknown => (d.companies[0]!.networks[0]!.virtualDevices[0]!.deviceType = 'ROUTER'), '$.companies[0].networks[0].virtualDevices[0].deviceType', /"ROUTER" is not one of/],
    ['a duplicate slug in the file', (d: ImportDocument): unknown => (d.companies[1]!.slug = 'acme'), '$.companies[1].slug', /duplicate company slug "acme"/],
    ['a duplicate UUID in the file', (d: ImportDocument): unknown => (d.companies[1]!.networks[0]!.UUID = IDS.acmeHq), '$.companies[1].networks[0].UUID', /duplicate UUID/],
    ['a duplicate serial in the file', (d: ImportDocument): unknown => (d.companies[1]!.networks[0]!.virtualDevices[0]!.hardwareDevice!.serialNumber = SERIALS.acmeAp), '$.companies[1].networks[0].virtualDevices[0].hardwareDevice.serialNumber', /duplicate serial number/],
    ['hardware of another type than its slot', (d: ImportDocument): unknown => (d.companies[0]!.networks[0]!.virtualDevices[0]!.hardwareDevice!.deviceType = 'ACCESS_POINT'), '$.companies[0].networks[0].virtualDevices[0].hardwareDevice.deviceType', /cannot be assigned to a SWITCH virtual device/],
  ] as const)('rejects %s with its JSON path, writing nothing', async (_name, mutate, jsonPath, message) => {
    const document = createFixture();
    for (const c of document.companies) c.slug = `${c.slug}-x`;
    for (const c of document.companies) delete c.uuid;
    document.companies[0]!.slug = 'acme';
    mutate(document);
    const before = await countRows(app);
    const result = await runNetgraph(['import', writeJson(`bad-${kind}.json`, document)], { DATABASE_URL: app.database.url });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Import rejected, nothing was written');
    expect(result.stderr).toContain(jsonPath);
    expect(result.stderr).toMatch(message);
    expect(await countRows(app)).toBe(before);
  });

  it('loads a company of more objects than one statement takes parameters for, with a change for each in the feed', async () => {
    // 100 networks of 50 devices: about 10,400 objects, each a CREATED change of 7 parameters (over PostgreSQL's 65,535 in one INSERT)
    const document = generateDataset({ companies: 1, networksPerCompany: 100, devicesPerNetwork: 50, clientsPerNetwork: 0, seed: 31, slugPrefix: `large-${kind}` });
    const company = document.companies[0]!;
    const result = await runNetgraph(['import', writeJson(`large-${kind}.json`, document), '--json'], { DATABASE_URL: app.database.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const counts = JSON.parse(result.stdout);
    expect(counts).toMatchObject({ companies: 1, networks: 100, virtualDevices: 5000 });
    const objects = counts.networks + counts.vlans + counts.ssids + counts.virtualDevices + counts.hardwareDevices;
    expect(objects).toBeGreaterThan(65_535 / 7);
    const { db } = app.server.store;
    const feed = await db
      .selectFrom('changes')
      .innerJoin('companies', 'companies.id', 'changes.company_id')
      .where('companies.slug', '=', company.slug)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    // the company's own CREATED change, then one per object
    expect(Number(feed.n)).toBe(objects + 1);
  });

  it('rejects identifiers that exist in the store already, naming each, and writes nothing', async () => {
    const document: ImportDocument = {
      companies: [
        { name: 'Fresh', slug: 'fresh', networks: [] },
        {
          name: 'Clash',
          slug: 'clash',
          networks: [{ ...createFixture().companies[0]!.networks[1]!, UUID: '77777777-7777-4777-8777-777777777777' }],
        },
      ],
    };
    const before = await countRows(app);
    const result = await runNetgraph(['import', writeJson(`dup-${kind}.json`, document)], { DATABASE_URL: app.database.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`$.companies[1].networks[0].virtualDevices[0].UUID: UUID "${IDS.acmeLabAp}" already exists`);
    expect(result.stderr).toContain(`serial number "${SERIALS.acmeLabAp}" is already registered`);
    expect(await countRows(app)).toBe(before);
    expect((await app.server.services.companies.list()).map((c) => c.slug)).not.toContain('fresh');
  });

  it('says what is wrong with a file that is not JSON, or missing', async () => {
    const notJson = await runNetgraph(['import', writeJson('broken.json', '{"companies": [')], { DATABASE_URL: app.database.url });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/broken\.json is not valid JSON/);
    const missing = await runNetgraph(['import', path.join(tmp, 'nope.json')], { DATABASE_URL: app.database.url });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope\.json: no such file/);
    const wrongShape = await runNetgraph(['import', '-'], { DATABASE_URL: app.database.url }, '{"companies": 3}');
    expect(wrongShape.code).toBe(1);
    expect(wrongShape.stderr).toContain('$.companies: must be an array');
  });
});

const ALL_FIELDS = {
  vd: 'UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber deviceType deviceModel isConnectedToBackend }',
  net: 'UUID label slug isActive mailingAddress { city subdivisionCode }',
};
const EVERY_QUERY = [
  `{ companyBySlug(slug: "acme") { uuid name slug networks { ${ALL_FIELDS.net} virtualDevices { ${ALL_FIELDS.vd} } vlans { UUID name vlanID isEnabled } ssids { UUID ssid isEnabled } } } }`,
  `{ networksForCompany(companySlug: "acme") { ${ALL_FIELDS.net} } }`,
  `{ virtualDevice(UUID: "${IDS.acmeAp}") { ${ALL_FIELDS.vd} } }`,
  `{ hardwareDevice(serialNumber: "${SERIALS.acmeSwitch}") { serialNumber deviceType deviceModel isConnectedToBackend } }`,
  `{ virtualDevicesForNetwork(networkUUID: "${IDS.acmeHq}") { ${ALL_FIELDS.vd} } }`,
  `{ networkClients(networkUUID: "${IDS.acmeHq}") { macAddress ip lastSeen } }`,
  `{ a: virtualDevice(UUID: "${IDS.globexAp}") { label } b: companyBySlug(slug: "Bad Slug") { name } }`,
];

describe('export, then import into the other store, loses nothing', () => {
  const kinds = storeKinds();
  const pairs: [StoreKind, StoreKind][] = kinds.length === 2 ? [['sqlite', 'postgres'], ['postgres', 'sqlite']] : [['sqlite', 'sqlite']];

  it.each(pairs)('%s -> %s', async (from, to) => {
    const source = await startTestApp(from);
    const target = await createTestDatabase(to);
    try {
      const document = createFixture();
      const generated = generateDataset({ companies: 2, networksPerCompany: 3, devicesPerNetwork: 4, clientsPerNetwork: 5, seed: 7, slugPrefix: 'gen' });
      document.companies.push(...generated.companies);
      await source.server.services.imports.import(document);

      const file = path.join(tmp, `export-${from}-${to}.json`);
      const exported = await runNetgraph(['export', '--output', file], { DATABASE_URL: source.database.url });
      expect(exported.code).toBe(0);
      expect((await runNetgraph(['migrate'], { DATABASE_URL: target.url })).code).toBe(0);
      const imported = await runNetgraph(['import', file], { DATABASE_URL: target.url });
      expect(imported.stderr).toBe('');
      expect(imported.code).toBe(0);
      const again = await runNetgraph(['export'], { DATABASE_URL: target.url });
      expect(again.code).toBe(0);
      // byte for byte the same export from both stores
      expect(again.stdout).toBe(fs.readFileSync(file, 'utf8'));
      // and the same answers from the API, byte for byte, for every query
      const reader = await startTestApp(to, { database: target });
      try {
        for (const query of EVERY_QUERY) {
          const [a, b] = await Promise.all([source.graphql(query), reader.graphql(query)]);
          expect(a.status).toBe(200);
          expect(b.text).toBe(a.text);
        }
      } finally {
        await reader.server.close();
      }
    } finally {
      await source.close();
      await target.drop();
    }
  });

  it('exports one company with --company, and refuses an unknown one', async () => {
    const app = await startTestApp('sqlite', { data: createFixture() });
    try {
      const one = await runNetgraph(['export', '--company', 'globex'], { DATABASE_URL: app.database.url });
      expect(JSON.parse(one.stdout).companies.map((c: { slug: string }) => c.slug)).toEqual(['globex']);
      const none = await runNetgraph(['export', '--company', 'nobody'], { DATABASE_URL: app.database.url });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('No company with slug "nobody"');
    } finally {
      await app.close();
    }
  });
});
