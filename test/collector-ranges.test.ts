import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { createFixture } from './helpers/fixture.js';
import { createScopedKey } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// Discovery ranges configured in netgraph (docs/collector.md#ranges-in-netgraph): the mutations'
// rules, scoping and audit, the collectors' fetch (GET /api/v1/collector/ranges) and the CLI. The
// sweep of a range by a running collector against real agents is in collector-discovery.test.ts.
const AUTH_KEY = 'range-auth-secret-81';
const PRIV_KEY = 'range-priv-secret-82';
const COMMUNITY = 'range-community-83';
const SECRETS = [AUTH_KEY, PRIV_KEY, COMMUNITY, 'another-secret-x'];
const FIELDS = 'UUID companyUUID range port snmpVersion snmpUser snmpLevel authProtocol privProtocol ratePerSecond intervalSeconds collectorKeyUUID collectorKeyLabel createdAt updatedAt';
const STATUS_OF = 'query ($id: UUID!) { collectorRange(UUID: $id) { range status collectorKeyLabel } }';
const CREATE = `mutation ($i: CreateCollectorRangeInput!) { createCollectorRange(input: $i) { range { ${FIELDS} } } }`;
const UPDATE = `mutation ($i: UpdateCollectorRangeInput!) { updateCollectorRange(input: $i) { range { ${FIELDS} } } }`;
const DELETE = 'mutation ($i: CollectorRangeInput!) { deleteCollectorRange(input: $i) { deletedRangeUUID } }';
const V3 = { version: '3', user: 'netgraph', authKey: AUTH_KEY, privKey: PRIV_KEY };

/** The secrets of the test that appear in the text: none, always. */
const secretsIn = (text: string) => SECRETS.filter((secret) => text.includes(secret));

describe.each(storeKinds())('collector discovery ranges on %s', (kind) => {
  let app: TestApp;
  let writeKey: string;
  let readKey: string;
  let otherWriteKey: string;
  let otherIngestKey: string;
  const site = { key: '', uuid: '' };
  const second = { key: '', uuid: '' };
  let readKeyUuid: string;
  let companyUuid: string;
  const answers: unknown[] = [];
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    writeKey = await createScopedKey(app, 'read_write');
    readKey = await app.createKey('acme');
    otherWriteKey = await createScopedKey(app, 'read_write', 'globex');
    otherIngestKey = await createScopedKey(app, 'ingest', 'globex');
    const keys = app.server.services.apiKeys;
    const a = await keys.create({ companySlug: 'acme', label: 'site-a collector', scope: 'ingest' });
    const b = await keys.create({ companySlug: 'acme', label: 'site-b collector', scope: 'ingest' });
    Object.assign(site, { key: a.key, uuid: a.id });
    Object.assign(second, { key: b.key, uuid: b.id });
    readKeyUuid = (await keys.create({ companySlug: 'acme', label: 'reader', scope: 'read' })).id;
    companyUuid = (await app.graphql('{ companyBySlug(slug: "acme") { uuid } }', { key: readKey })).body.data.companyBySlug.uuid as string;
  });
  afterAll(async () => {
    await app?.close();
  });
  const call = async (query: string, i: unknown, key = writeKey) => {
    const response = await app.graphql(query, { key, variables: { i } });
    answers.push(response.body);
    return response.body;
  };
  const refusal = async (i: unknown, key = writeKey) => ((await call(CREATE, i, key)).errors as JsonTree[])[0] as JsonTree;
  const fetchRanges = (key?: string) => app.request('/api/v1/collector/ranges', key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
  const list = async (key = readKey) => (await app.graphql(`{ collectorRangesForCompany(companyUUID: "${companyUuid}") { ${FIELDS} } }`, { key })).body.data?.collectorRangesForCompany as JsonTree[] | null;

  it('creates ranges for one collector or every one, with defaults, never answering their credentials', async () => {
    const own = await call(CREATE, { range: '10.20.0.0/24', snmp: V3, ratePerSecond: 20, intervalSeconds: 600, collectorKeyUUID: site.uuid });
    expect(own.errors).toBeUndefined();
    expect((own.data as JsonTree).createCollectorRange).toMatchObject({
      range: {
        companyUUID: companyUuid, range: '10.20.0.0/24', port: 161, snmpVersion: '3', snmpUser: 'netgraph', snmpLevel: 'authPriv', authProtocol: 'sha256',
        privProtocol: 'aes', ratePerSecond: 20, intervalSeconds: 600, collectorKeyUUID: site.uuid, collectorKeyLabel: 'site-a collector',
      },
    });
    const every = await call(CREATE, { range: '192.0.2.0/28', port: 1161, snmp: { version: '2c', community: COMMUNITY } });
    expect((every.data as JsonTree).createCollectorRange).toMatchObject({ range: { range: '192.0.2.0/28', port: 1161, snmpVersion: '2c', snmpUser: null, ratePerSecond: 100, intervalSeconds: 3600, collectorKeyUUID: null, collectorKeyLabel: null } });
    expect((await list())?.map((r) => r.range)).toEqual(['10.20.0.0/24', '192.0.2.0/28']);
  });

  it('refuses every bad input with a message naming its field, and a read key or another company\'s key', async () => {
    const wide = await refusal({ range: '10.0.0.0/8', snmp: V3 });
    expect(wide).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.range' } });
    expect(wide.message).toContain('10.0.0.0/8 holds 16,777,216 addresses: sweep at most a /16');
    expect((await refusal({ range: '10.0.0.5/24', snmp: V3 })).message).toContain('range: 10.0.0.5/24 has host bits set: its network is 10.0.0.0/24');
    expect((await refusal({ range: 'ten/24', snmp: V3 })).message).toContain('ten/24 is no IPv4 range');
    expect(await refusal({ range: '10.0.0.0/24', snmp: V3, ratePerSecond: 0 })).toMatchObject({ message: 'ratePerSecond: must be a whole number from 1 to 10000.', extensions: { field: 'input.ratePerSecond' } });
    expect(await refusal({ range: '10.0.0.0/24', snmp: V3, intervalSeconds: 30 })).toMatchObject({ message: 'intervalSeconds: must be a whole number from 60 to 604800.', extensions: { field: 'input.intervalSeconds' } });
    expect(await refusal({ range: '10.0.0.0/24', snmp: V3, port: 70000 })).toMatchObject({ extensions: { field: 'input.port' } });
    const short = await refusal({ range: '10.0.0.0/24', snmp: { version: '3', user: 'u', authKey: 'short', privKey: 'another-secret-x' } });
    expect(short).toMatchObject({ message: 'snmp.authKey: must be a string of 8 to 255 characters.', extensions: { field: 'input.snmp.authKey' } });
    expect((await refusal({ range: '10.0.0.0/24', snmp: { version: '1' } })).extensions).toMatchObject({ field: 'input.snmp.version' });
    // every problem at once, the first as the field
    expect((await refusal({ range: '10.0.0.0/8', snmp: V3, ratePerSecond: 0 })).message).toMatch(/^range: .*; ratePerSecond: /);
    // the collector is an ingest key of the company
    expect(await refusal({ range: '10.0.0.0/24', snmp: V3, collectorKeyUUID: readKeyUuid })).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.collectorKeyUUID' }, message: expect.stringContaining('scope ingest') });
    const foreignKey = (await app.server.services.apiKeys.create({ companySlug: 'globex', label: 'globex collector', scope: 'ingest' })).id;
    expect(await refusal({ range: '10.0.0.0/24', snmp: V3, collectorKeyUUID: foreignKey })).toMatchObject({ extensions: { code: 'UNAUTHORIZED', field: 'input.collectorKeyUUID' } });
    expect((await refusal({ range: '10.0.0.0/24', snmp: V3, collectorKeyUUID: 'not-a-uuid' })).extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await refusal({ range: '10.0.0.0/24', snmp: V3 }, readKey)).extensions).toMatchObject({ code: 'FORBIDDEN' });
    expect((await refusal({ range: '10.0.0.0/24', snmp: V3 }, site.key)).extensions).toMatchObject({ code: 'FORBIDDEN' });
    expect(await list()).toHaveLength(2);
  });

  it('hands each collector key its own ranges and every collector\'s, credentials opened, and nothing to other keys', async () => {
    const ranges = async (key: string) => ((await fetchRanges(key)).body as { ranges: JsonTree[] }).ranges;
    const mine = await fetchRanges(site.key);
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('no-store');
    const own = (mine.body as { ranges: JsonTree[] }).ranges;
    expect(own.map((r) => r.range)).toEqual(['10.20.0.0/24', '192.0.2.0/28']);
    expect(own[0]).toEqual({ rangeUUID: expect.any(String), range: '10.20.0.0/24', port: 161, ratePerSecond: 20, intervalSeconds: 600, snmp: { ...V3, level: 'authPriv', authProtocol: 'sha256', privProtocol: 'aes' } });
    expect(own[1]?.snmp).toEqual({ version: '2c', community: COMMUNITY });
    expect((await ranges(second.key)).map((r) => r.range)).toEqual(['192.0.2.0/28']);
    expect(await ranges(otherIngestKey)).toEqual([]);
    expect((await fetchRanges(readKey)).status).toBe(403);
    expect((await fetchRanges(writeKey)).status).toBe(403);
    expect((await fetchRanges()).status).toBe(401);
  });

  it('keeps another company out: its keys neither see nor change the ranges', async () => {
    const [first] = (await list()) as JsonTree[];
    expect(await list(otherWriteKey)).toBeNull();
    expect((await app.graphql(`{ collectorRange(UUID: "${first?.UUID}") { UUID } }`, { key: otherWriteKey })).body.data.collectorRange).toBeNull();
    expect((await app.graphql(`{ collectorRange(UUID: "${first?.UUID}") { UUID range } }`, { key: readKey })).body.data.collectorRange).toEqual({ UUID: first?.UUID, range: first?.range });
    expect((((await call(UPDATE, { rangeUUID: first?.UUID, ratePerSecond: 5 }, otherWriteKey)).errors as JsonTree[])[0]?.extensions as JsonTree).code).toBe('UNAUTHORIZED');
    expect((((await call(DELETE, { rangeUUID: first?.UUID }, otherWriteKey)).errors as JsonTree[])[0]?.extensions as JsonTree).code).toBe('UNAUTHORIZED');
    expect((await list())?.[0]?.ratePerSecond).toBe(20);
  });

  it('updates the given fields (null hands a range to every collector), deletes, and audits each change without a credential', async () => {
    const [first, every] = (await list()) as JsonTree[];
    const updated = await call(UPDATE, { rangeUUID: first?.UUID, ratePerSecond: 5, collectorKeyUUID: null });
    expect((updated.data as JsonTree).updateCollectorRange).toMatchObject({ range: { range: '10.20.0.0/24', ratePerSecond: 5, intervalSeconds: 600, snmpVersion: '3', collectorKeyUUID: null } });
    // the credentials stay as they were: the second collector gets them now
    const fetched = ((await fetchRanges(second.key)).body as { ranges: JsonTree[] }).ranges;
    expect(fetched.find((r) => r.rangeUUID === first?.UUID)?.snmp).toMatchObject({ authKey: AUTH_KEY, privKey: PRIV_KEY });
    const moved = await call(UPDATE, { rangeUUID: every?.UUID, collectorKeyUUID: second.uuid, snmp: { version: '2c', community: `${COMMUNITY}-2` } });
    expect((moved.data as JsonTree).updateCollectorRange).toMatchObject({ range: { collectorKeyUUID: second.uuid, collectorKeyLabel: 'site-b collector' } });
    expect((((await call(UPDATE, { rangeUUID: first?.UUID })).errors as JsonTree[])[0] as JsonTree).message).toContain('Name at least one field to change');
    expect((((await call(UPDATE, { rangeUUID: first?.UUID, range: '10.20.0.0/15' })).errors as JsonTree[])[0]?.extensions as JsonTree).field).toBe('input.range');

    const deleted = await call(DELETE, { rangeUUID: every?.UUID });
    expect(deleted).toEqual({ data: { deleteCollectorRange: { deletedRangeUUID: every?.UUID } } });
    expect((((await call(DELETE, { rangeUUID: every?.UUID })).errors as JsonTree[])[0]?.extensions as JsonTree).code).toBe('UNAUTHORIZED');
    expect((await list())?.map((r) => r.UUID)).toEqual([first?.UUID]);

    const audit = (await app.server.services.audit.list({ companySlug: 'acme' })).filter((e) => e.action.startsWith('collector_range.'));
    expect(audit.map((e) => [e.action, e.objectId])).toEqual([
      ['collector_range.create', first?.UUID],
      ['collector_range.create', every?.UUID],
      ['collector_range.update', first?.UUID],
      ['collector_range.update', every?.UUID],
      ['collector_range.delete', every?.UUID],
    ]);
    expect(audit[2]).toMatchObject({ before: { ratePerSecond: 20, collectorKeyUUID: site.uuid }, after: { ratePerSecond: 5, collectorKeyUUID: null } });
    expect(secretsIn(JSON.stringify(audit))).toEqual([]);
    expect(secretsIn(JSON.stringify(answers))).toEqual([]);
    // nor at rest in the clear
    const rows = await app.server.store.db.selectFrom('collector_ranges').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(secretsIn(JSON.stringify(rows))).toEqual([]);
  });

  it('is managed from the command line too: create from stdin credentials, update, list, delete', async () => {
    const env = { DATABASE_URL: app.database.url };
    const created = await runNetgraph(['collector', 'ranges', 'create', '--company', 'acme', '--range', '198.51.100.0/25', '--snmp', '-', '--rate', '10', '--collector-key', site.uuid, '--json'], env, JSON.stringify({ version: '2c', community: COMMUNITY }));
    expect(created.stderr).toBe('');
    const range = JSON.parse(created.stdout) as JsonTree;
    expect(range).toMatchObject({ range: '198.51.100.0/25', ratePerSecond: 10, collectorKeyUUID: site.uuid, snmpVersion: '2c' });
    const updated = await runNetgraph(['collector', 'ranges', 'update', '--company', 'acme', '--interval', '7200', '--collector-key', 'all', range.UUID as string], env);
    expect(updated.stdout).toContain(`saved 198.51.100.0/25 (id ${range.UUID})`);
    const listed = await runNetgraph(['collector', 'ranges', 'list', '--company', 'acme'], env);
    expect(listed.stdout).toMatch(new RegExp(`${range.UUID}\\s+198\\.51\\.100\\.0/25:161\\s+v2c\\s+10/s\\s+7200s\\s+every collector`));
    const bad = await runNetgraph(['collector', 'ranges', 'create', '--company', 'acme', '--range', '10.0.0.0/8', '--snmp', '-'], env, JSON.stringify({ version: '2c', community: COMMUNITY }));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('range: 10.0.0.0/8 holds 16,777,216 addresses');
    const deleted = await runNetgraph(['collector', 'ranges', 'delete', '--company', 'acme', range.UUID as string], env);
    expect(deleted.stdout).toContain(`deleted 198.51.100.0/25 (id ${range.UUID})`);
    for (const out of [created, updated, listed, bad, deleted]) expect(secretsIn(out.stdout + out.stderr)).toEqual([]);
    const audit = (await app.server.services.audit.list({ companySlug: 'acme' })).filter((e) => e.objectId === range.UUID);
    expect(audit.map((e) => [e.action, e.actor.type])).toEqual([['collector_range.create', 'cli'], ['collector_range.update', 'cli'], ['collector_range.delete', 'cli']]);
  }, 60_000);

  it('refuses a range that overlaps another the same collectors sweep on the same port with the same credentials, naming it; other credentials, ports or collectors are allowed', async () => {
    const v2c = { version: '2c', community: `${COMMUNITY}-overlap` };
    const wide = await call(CREATE, { range: '172.16.0.0/22', snmp: v2c, collectorKeyUUID: site.uuid });
    const wideId = ((wide.data as JsonTree).createCollectorRange as JsonTree & { range: JsonTree }).range.UUID as string;
    // inside it, for the same collector, with the same credentials: refused, naming the other range
    const inside = await refusal({ range: '172.16.1.0/24', snmp: v2c, collectorKeyUUID: site.uuid });
    expect(inside).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'input.range' } });
    expect(inside.message).toBe(
      `range: 172.16.1.0/24 overlaps the range 172.16.0.0/22 (id ${wideId}), which the same collectors sweep on port 161 with the same credentials: change that range instead, or give this one other credentials or another collector.`,
    );
    expect(secretsIn(inside.message as string)).toEqual([]);
    // every collector's range over it: site-a's collector would sweep both
    expect((await refusal({ range: '172.16.0.0/16', snmp: v2c, ratePerSecond: 10 })).message).toContain(`overlaps the range 172.16.0.0/22 (id ${wideId})`);
    // the same fields in another order are the same credentials
    const v3 = await call(CREATE, { range: '172.17.0.0/24', snmp: { privKey: PRIV_KEY, version: '3', authKey: AUTH_KEY, user: 'overlap' }, collectorKeyUUID: site.uuid });
    expect(v3.errors).toBeUndefined();
    expect((await refusal({ range: '172.17.0.128/25', snmp: { version: '3', user: 'overlap', authKey: AUTH_KEY, privKey: PRIV_KEY, level: 'authPriv', authProtocol: 'sha256' } })).message).toContain('overlaps the range 172.17.0.0/24');
    // other credentials over the same addresses (tried where the first got no answer), another port, another collector (another site): allowed
    const allowed = [
      { range: '172.16.1.0/24', snmp: { ...v2c, community: `${COMMUNITY}-other` }, collectorKeyUUID: site.uuid },
      { range: '172.16.1.0/24', snmp: v2c, port: 1161, collectorKeyUUID: site.uuid },
      { range: '172.16.0.0/22', snmp: v2c, collectorKeyUUID: second.uuid },
      { range: '172.16.4.0/24', snmp: v2c, collectorKeyUUID: site.uuid },
    ];
    const made: string[] = [];
    for (const i of allowed) {
      const answer = await call(CREATE, i);
      expect(answer.errors, JSON.stringify(i)).toBeUndefined();
      made.push((((answer.data as JsonTree).createCollectorRange as JsonTree).range as JsonTree).UUID as string);
    }
    // an update that makes an overlap is refused the same way; one that ends it is saved
    const moved = await call(UPDATE, { rangeUUID: made[3], range: '172.16.2.0/24' });
    expect((moved.errors as JsonTree[])[0]).toMatchObject({ extensions: { field: 'input.range' }, message: expect.stringContaining(`overlaps the range 172.16.0.0/22 (id ${wideId})`) });
    expect((await call(UPDATE, { rangeUUID: made[1], port: 161 })).errors).toBeDefined();
    expect((await call(UPDATE, { rangeUUID: made[1], port: 1162 })).errors).toBeUndefined();
    for (const id of [wideId, ((v3.data as JsonTree).createCollectorRange as JsonTree & { range: JsonTree }).range.UUID, ...made]) {
      expect((await call(DELETE, { rangeUUID: id })).errors).toBeUndefined();
    }
  });

  it('says whether a collector sweeps each range: a revoked or expired collector key leaves its ranges to no one, in the API and the CLI, and `keys revoke` warns', async () => {
    const env = { DATABASE_URL: app.database.url };
    const keys = app.server.services.apiKeys;
    const doomed = await keys.create({ companySlug: 'acme', label: 'site-c collector', scope: 'ingest' });
    const brief = await keys.create({ companySlug: 'acme', label: 'site-d collector', scope: 'ingest', expires: new Date(Math.ceil((Date.now() + 5000) / 1000) * 1000).toISOString().replace('.000Z', 'Z') });
    const create = async (range: string, collectorKeyUUID: string | null) =>
      (((await call(CREATE, { range, snmp: { version: '2c', community: COMMUNITY }, collectorKeyUUID })).data as JsonTree).createCollectorRange as JsonTree & { range: JsonTree }).range.UUID as string;
    const [c1, c2, d1, every] = [await create('203.0.113.0/26', doomed.id), await create('203.0.113.64/26', doomed.id), await create('203.0.113.128/26', brief.id), await create('203.0.113.192/26', null)];
    const status = async (id: string) => (await app.graphql(STATUS_OF, { key: readKey, variables: { id } })).body.data.collectorRange as JsonTree;
    expect(await Promise.all([c1, d1, every].map(status))).toEqual([
      { range: '203.0.113.0/26', status: 'ACTIVE', collectorKeyLabel: 'site-c collector' },
      { range: '203.0.113.128/26', status: 'ACTIVE', collectorKeyLabel: 'site-d collector' },
      { range: '203.0.113.192/26', status: 'ACTIVE', collectorKeyLabel: null },
    ]);

    const revoked = await runNetgraph(['keys', 'revoke', doomed.id], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('is revoked');
    expect(revoked.stderr).toContain('warning: "site-c collector" held 2 discovery ranges, which no collector sweeps now');
    // a key that held none revokes without a warning
    const idle = await keys.create({ companySlug: 'acme', label: 'idle collector', scope: 'ingest' });
    expect((await runNetgraph(['keys', 'revoke', idle.id], env)).stderr).toBe('');

    // the expired key's range, once its time is past
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(brief.expiresAt as string) - Date.now() + 200)));
    expect(await Promise.all([c1, c2, d1, every].map(status))).toEqual([
      { range: '203.0.113.0/26', status: 'KEY_REVOKED', collectorKeyLabel: 'site-c collector' },
      { range: '203.0.113.64/26', status: 'KEY_REVOKED', collectorKeyLabel: 'site-c collector' },
      { range: '203.0.113.128/26', status: 'KEY_EXPIRED', collectorKeyLabel: 'site-d collector' },
      { range: '203.0.113.192/26', status: 'ACTIVE', collectorKeyLabel: null },
    ]);
    const listed = await runNetgraph(['collector', 'ranges', 'list', '--company', 'acme'], env);
    expect(listed.stdout).toMatch(/^ID\s+RANGE\s+SNMP\s+RATE\s+INTERVAL\s+COLLECTOR\s+STATUS$/m);
    expect(listed.stdout).toMatch(new RegExp(`${c1}\\s+203\\.0\\.113\\.0/26:161 .*site-c collector \\(${doomed.id}\\)\\s+key revoked: swept by no one$`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`${d1}\\s+203\\.0\\.113\\.128/26:161 .*\\s+key expired: swept by no one$`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`${every}\\s+203\\.0\\.113\\.192/26:161 .*every collector\\s+active$`, 'm'));
    const json = JSON.parse((await runNetgraph(['collector', 'ranges', 'list', '--company', 'acme', '--json'], env)).stdout) as JsonTree[];
    expect(json.find((r) => r.UUID === c2)?.status).toBe('KEY_REVOKED');

    // handed to no other collector: the other keys get only the every-collector range of these
    const fetched = ((await fetchRanges(second.key)).body as { ranges: JsonTree[] }).ranges.map((r) => r.range);
    expect(fetched.filter((r) => String(r).startsWith('203.0.113.'))).toEqual(['203.0.113.192/26']);
    // neither key can be given to a range now; another collector (or every one) brings it back
    expect((await call(UPDATE, { rangeUUID: d1, collectorKeyUUID: brief.id })).errors).toMatchObject([{ extensions: { field: 'input.collectorKeyUUID' }, message: expect.stringContaining('expired key') }]);
    expect((await call(UPDATE, { rangeUUID: c1, collectorKeyUUID: doomed.id })).errors).toMatchObject([{ message: expect.stringContaining('revoked key') }]);
    expect((await call(UPDATE, { rangeUUID: c2, collectorKeyUUID: second.uuid })).errors).toBeUndefined();
    expect((await status(c2)).status).toBe('ACTIVE');
    for (const id of [c1, c2, d1, every]) expect((await call(DELETE, { rangeUUID: id })).errors).toBeUndefined();
  }, 60_000);
});
