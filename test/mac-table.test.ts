import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// A switch's MAC forwarding table: reported as `macTable`, answered by switchMACTable (docs/reports.md, docs/schema.md).
const TABLE = /* GraphQL */ `
  query ($device: UUID!) { switchMACTable(virtualDeviceUUID: $device) { virtualDeviceUUID macAddress vlanID portNumber updatedAt } }
`;
// the SDK's own selection, with the UUID as a literal
const SDK_TABLE = (uuid: string) => `{ switchMACTable(virtualDeviceUUID: "${uuid}") { virtualDeviceUUID vlanID updatedAt } }`;

const entry = (macAddress: string, vlanID: number | null, portNumber: number) => ({ macAddress, vlanID, portNumber });

describe.each(storeKinds())('switch MAC tables on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let ingestKey: string;
  let globexIngestKey: string;
  const now = () => new Date(clock.now()).toISOString();
  const post = async (reports: Record<string, unknown>[], key = ingestKey) => {
    const response = await postReports(app, key, reports);
    expect(response.status).toBe(200);
    return response.body as { accepted: number; duplicates: number; rejected: { index: number; code: string; path: string; message: string }[] };
  };
  const table = async (device: string, key?: string) => {
    const response = await app.graphql(TABLE, { variables: { device }, ...(key === undefined ? {} : { key }) });
    return response.body as { data: { switchMACTable: unknown }; errors?: { message: string; path: string[]; extensions: { code: string } }[] };
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now });
    ingestKey = await createScopedKey(app, 'ingest');
    globexIngestKey = await createScopedKey(app, 'ingest', 'globex');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers an empty table for a switch that never reported one, and for a device without hardware', async () => {
    expect(await table(IDS.acmeSwitch)).toEqual({ data: { switchMACTable: [] } });
    expect(await table(IDS.acmeObserver)).toEqual({ data: { switchMACTable: [] } });
  });

  it('answers the reported table exactly, by MAC address then VLAN, with no VLAN as null', async () => {
    const first = now();
    const body = await post([
      report(SERIALS.acmeSwitch, first, {
        macTable: [entry('3C:22:FB:00:00:02', 20, 7), entry('3c:22:fb:00:00:01', 10, 3), entry('3c:22:fb:00:00:02', 10, 4), entry('0c:8d:db:00:00:09', null, 47)],
      }),
    ]);
    expect(body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect(await table(IDS.acmeSwitch)).toEqual({
      data: {
        switchMACTable: [
          { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '0c:8d:db:00:00:09', vlanID: null, portNumber: 47, updatedAt: first },
          { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:01', vlanID: 10, portNumber: 3, updatedAt: first },
          { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:02', vlanID: 10, portNumber: 4, updatedAt: first },
          { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:02', vlanID: 20, portNumber: 7, updatedAt: first },
        ],
      },
    });
    const sdk = await app.graphql(SDK_TABLE(IDS.acmeSwitch));
    expect(sdk.body).toEqual({
      data: {
        switchMACTable: [
          { virtualDeviceUUID: IDS.acmeSwitch, vlanID: null, updatedAt: first },
          { virtualDeviceUUID: IDS.acmeSwitch, vlanID: 10, updatedAt: first },
          { virtualDeviceUUID: IDS.acmeSwitch, vlanID: 10, updatedAt: first },
          { virtualDeviceUUID: IDS.acmeSwitch, vlanID: 20, updatedAt: first },
        ],
      },
    });
  });

  it('replaces the table as a set: gone entries go, a moved one takes its new port and time, the others keep theirs', async () => {
    const first = (await table(IDS.acmeSwitch)).data.switchMACTable as { updatedAt: string }[];
    const before = first[1]?.updatedAt;
    clock.advance(30_000);
    const second = now();
    await post([report(SERIALS.acmeSwitch, second, { macTable: [entry('3c:22:fb:00:00:01', 10, 3), entry('3c:22:fb:00:00:02', 10, 5), entry('3c:22:fb:00:00:03', 10, 6)] })]);
    expect((await table(IDS.acmeSwitch)).data.switchMACTable).toEqual([
      { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:01', vlanID: 10, portNumber: 3, updatedAt: before },
      { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:02', vlanID: 10, portNumber: 5, updatedAt: second },
      { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:03', vlanID: 10, portNumber: 6, updatedAt: second },
    ]);
  });

  it('keeps the table when a report leaves macTable out or is older, and empties it on []', async () => {
    const kept = (await table(IDS.acmeSwitch)).data.switchMACTable;
    clock.advance(30_000);
    // no macTable: the table stays; an older report with one changes nothing
    await post([report(SERIALS.acmeSwitch, now(), { uptimeSeconds: 10 }), report(SERIALS.acmeSwitch, new Date(clock.now() - 40_000).toISOString(), { macTable: [] })]);
    expect((await table(IDS.acmeSwitch)).data.switchMACTable).toEqual(kept);
    // within one batch the newest report with a table decides
    clock.advance(30_000);
    const late = now();
    await post([
      report(SERIALS.acmeSwitch, late, { macTable: [entry('3c:22:fb:00:00:09', 30, 9)] }),
      report(SERIALS.acmeSwitch, new Date(clock.now() - 1000).toISOString(), { macTable: [entry('3c:22:fb:00:00:08', 30, 8)] }),
    ]);
    expect((await table(IDS.acmeSwitch)).data.switchMACTable).toEqual([
      { virtualDeviceUUID: IDS.acmeSwitch, macAddress: '3c:22:fb:00:00:09', vlanID: 30, portNumber: 9, updatedAt: late },
    ]);
    clock.advance(30_000);
    await post([report(SERIALS.acmeSwitch, now(), { macTable: [] })]);
    expect(await table(IDS.acmeSwitch)).toEqual({ data: { switchMACTable: [] } });
  });

  it('refuses a malformed table with the path of the offending field', async () => {
    clock.advance(30_000);
    const bad = (macTable: unknown) => report(SERIALS.acmeSwitch, now(), { macTable });
    const body = await post([
      bad({}),
      bad([entry('3c:22:fb:00:00:01', 10, 1), entry('3c:22:fb:00:00:01', 10, 2)]),
      bad([entry('3c-22-fb-00-00-01', 10, 1)]),
      bad([entry('3c:22:fb:00:00:01', 4095, 1)]),
      bad([{ macAddress: '3c:22:fb:00:00:01', vlanID: 10 }]),
      bad(Array.from({ length: 8193 }, (_, i) => entry('3c:22:fb:00:00:01', (i % 4094) + 1, i))),
      // the same MAC in two VLANs, and in no VLAN, is three entries
      bad([entry('3c:22:fb:00:00:01', 10, 1), entry('3c:22:fb:00:00:01', 20, 1), entry('3c:22:fb:00:00:01', null, 1)]),
    ]);
    expect(body).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        { index: 0, code: 'BAD_USER_INPUT', path: 'reports[0].macTable', message: 'must be a list (or left out)' },
        { index: 1, code: 'BAD_USER_INPUT', path: 'reports[1].macTable[1].macAddress', message: 'repeats 3c:22:fb:00:00:01 in VLAN 10: each may appear once per report' },
        { index: 2, code: 'BAD_USER_INPUT', path: 'reports[2].macTable[0].macAddress', message: 'must be a MAC address like 0c:8d:db:00:00:01' },
        { index: 3, code: 'BAD_USER_INPUT', path: 'reports[3].macTable[0].vlanID', message: 'must be a whole number from 1 to 4094' },
        { index: 4, code: 'BAD_USER_INPUT', path: 'reports[4].macTable[0].portNumber', message: 'must be a whole number from 0 to 65535' },
        { index: 5, code: 'BAD_USER_INPUT', path: 'reports[5].macTable', message: 'holds 8193 entries; at most 8192 are allowed' },
      ],
    });
    expect(((await table(IDS.acmeSwitch)).data.switchMACTable as unknown[]).length).toBe(3);
  });

  it("answers another company's device exactly like a missing one", async () => {
    await post([report(SERIALS.globexAp, now(), { macTable: [entry('3c:22:fb:00:00:77', 10, 1)] })], globexIngestKey);
    const globexKey = await app.createKey('globex');
    expect((await table(IDS.globexAp, globexKey)).data.switchMACTable).toEqual([
      { virtualDeviceUUID: IDS.globexAp, macAddress: '3c:22:fb:00:00:77', vlanID: 10, portNumber: 1, updatedAt: now() },
    ]);
    const theirs = await table(IDS.globexAp);
    const missing = await table('99999999-9999-4999-8999-999999999999');
    expect(theirs.data).toEqual({ switchMACTable: null });
    expect(theirs.errors?.map((e) => e.extensions.code)).toEqual(['UNAUTHORIZED']);
    expect(JSON.stringify(theirs).replaceAll(IDS.globexAp, 'X')).toBe(JSON.stringify(missing).replaceAll('99999999-9999-4999-8999-999999999999', 'X'));
    const malformed = await app.graphql('{ switchMACTable(virtualDeviceUUID: "not-a-uuid") { macAddress } }');
    expect(malformed.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('prices the table at its largest size, and charges what the answer held', async () => {
    // requested: 2 + ceil(8192 / 100) × 3 = 248; actual: the 3 entries count as one element: 2 + 1 × 3 = 5
    const priced = await app.request('/api/v1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await app.createKey('acme', 'cost')}` },
      body: JSON.stringify({ query: SDK_TABLE(IDS.acmeSwitch), extensions: { cost: true } }),
    });
    expect(priced.body.extensions.cost).toMatchObject({ requested: 248, actual: 5 });
  });
});
