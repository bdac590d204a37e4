import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as migration0038 } from '../src/db/migrations/0038-switch-mac-history.js';
import { createFleet } from '../src/tools/simulator/simulator.fleet.js';
import type { SimulatedReport } from '../src/tools/simulator/simulator.report.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, at, createScopedKey, postReports, report } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

// rogueAccessPointsObservedOnNetwork over a window that holds time when a rogue access point was both heard and on
// the wire, after it was unplugged (issue 32): the rule reads the history of the switches' MAC tables
// (migration 0038), not only their latest tables (docs/security.md, docs/reports.md).

const AP_MAC = '0c:8d:db:00:01:00';
const OWN_BSSID = '0c:8d:db:00:01:10';
const ROGUE_WIRED = 'a4:5e:60:11:22:30';
const ROGUE = 'a4:5e:60:11:22:35';
const NEIGHBOUR = 'de:ad:be:ef:00:02';
const LATER_WIRED = 'b8:27:eb:00:00:40';
const LATER = 'b8:27:eb:00:00:41';

const TF = (duration: number, endTime: string) => `{ timeFilter: { durationSeconds: ${duration}, stepSeconds: 300, endTime: "${endTime}" } }`;
const ROGUES = (filter: string) =>
  `{ rogueAPs: rogueAccessPointsObservedOnNetwork(networkUUIDs: ["${IDS.acmeHq}"], filter: ${filter}, limit: 50) { networkUUID BSSID ssid wiredMACAddress wiredPortNumber firstObservedAt lastObservedAt observers { ssid rssi observedAt virtualDevice { UUID } } } }`;
const MAC_TABLE = `{ switchMACTable(virtualDeviceUUID: "${IDS.acmeSwitch}") { macAddress vlanID portNumber updatedAt } }`;
const entry = (macAddress: string, portNumber: number) => ({ macAddress, vlanID: 10, portNumber });
const heard = (BSSID: string, ssid: string | null, rssi: number) => ({ BSSID, ssid, rssi, channel: 6 });
const scan = (seconds: number, bssids: ReturnType<typeof heard>[]) =>
  report(SERIALS.acmeAp, at(seconds), { macAddress: AP_MAC, radios: [{ BSSID: OWN_BSSID, radioBand: 'BAND_5G', ssid: 'Acme-Corp' }], foreignBSSIDs: bssids });
const table = (seconds: number, entries: ReturnType<typeof entry>[]) => report(SERIALS.acmeSwitch, at(seconds), { macTable: entries });

interface HistoryRow {
  mac_address: string;
  port_number: number;
  first_seen_at: string;
  gone_at: string | null;
}

describe.each(storeKinds())('rogue access points over a window, from the MAC tables’ history, on %s', (kind) => {
  let app: TestApp;
  let ingestKey: string;
  const clock = createTestClock(REPORT_EPOCH);
  const setClock = (seconds: number) => clock.advance(REPORT_EPOCH + seconds * 1000 - clock.now());
  const post = async (reports: Record<string, unknown>[]) => {
    const response = await postReports(app, ingestKey, reports);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ accepted: reports.length, rejected: [] });
  };
  const data = async (query: string) => {
    const res = await app.graphql(query);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };
  /** The switch's history rows, as ISO times, by MAC address and start. */
  const history = async (): Promise<HistoryRow[]> => {
    const rows = await sql<HistoryRow>`
      SELECT h.mac_address, h.port_number, h.first_seen_at, h.gone_at FROM switch_mac_history h
      JOIN hardware_devices d ON d.id = h.hardware_device_id WHERE d.serial_number = ${SERIALS.acmeSwitch}
      ORDER BY h.mac_address, h.first_seen_at`.execute(app.server.store.db);
    const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());
    return rows.rows.map((r) => ({ mac_address: r.mac_address, port_number: r.port_number, first_seen_at: iso(r.first_seen_at) as string, gone_at: iso(r.gone_at) }));
  };

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, backgroundWork: false });
    ingestKey = await createScopedKey(app, 'ingest');
    // at(0): the rogue is plugged into port 12 and heard; at(30) the same table again, heard again;
    // at(60) it moves to port 14; at(120) it is unplugged; at(150) it is still heard (on a battery, off the wire)
    setClock(0);
    await post([table(0, [entry(AP_MAC, 1), entry(ROGUE_WIRED, 12)]), scan(0, [heard(ROGUE, 'FreeWiFi', -60), heard(NEIGHBOUR, 'Neighbor', -80)])]);
    setClock(30);
    await post([table(30, [entry(AP_MAC, 1), entry(ROGUE_WIRED, 12)]), scan(30, [heard(ROGUE, 'FreeWiFi', -58)])]);
    setClock(60);
    await post([table(60, [entry(AP_MAC, 1), entry(ROGUE_WIRED, 14)])]);
    setClock(120);
    await post([table(120, [entry(AP_MAC, 1)])]);
    setClock(150);
    await post([scan(150, [heard(ROGUE, 'FreeWiFi', -70)])]);
    setClock(180);
  });
  afterAll(async () => {
    await app?.close();
  });

  const rogue = (overrides: Record<string, unknown>) => ({
    networkUUID: IDS.acmeHq,
    BSSID: ROGUE,
    ssid: 'FreeWiFi',
    wiredMACAddress: ROGUE_WIRED,
    ...overrides,
  });

  it('lists an unplugged rogue for a window that holds time when it was heard and on the wire, with where it was', async () => {
    // the last 24 hours: heard at 0, 30 and 150; on the wire from 0 to 120, on port 14 last
    expect(await data(ROGUES(TF(86400, at(180))))).toEqual({
      rogueAPs: [
        rogue({
          wiredPortNumber: 14,
          firstObservedAt: at(0),
          lastObservedAt: at(150),
          observers: [{ ssid: 'FreeWiFi', rssi: -70, observedAt: at(150), virtualDevice: { UUID: IDS.acmeAp } }],
        }),
      ],
    });
    // [0, 60): it was on port 12 only (port 14 from 60 on is outside)
    expect(await data(ROGUES(TF(60, at(60))))).toEqual({
      rogueAPs: [
        rogue({
          wiredPortNumber: 12,
          firstObservedAt: at(0),
          lastObservedAt: at(30),
          observers: [{ ssid: 'FreeWiFi', rssi: -58, observedAt: at(30), virtualDevice: { UUID: IDS.acmeAp } }],
        }),
      ],
    });
    // the latest table no longer lists it
    expect(await data(MAC_TABLE)).toEqual({ switchMACTable: [{ macAddress: AP_MAC, vlanID: 10, portNumber: 1, updatedAt: at(0) }] });
  });

  it('lists none for a window entirely after it left the wire, even while it is still heard', async () => {
    // [121, 181) and [120, 151): heard at 150, but off the wire from 120 (the first table without it)
    expect(await data(ROGUES(TF(60, at(181))))).toEqual({ rogueAPs: [] });
    expect(await data(ROGUES(TF(31, at(151))))).toEqual({ rogueAPs: [] });
    // [119, 151): its last second on the wire is inside
    expect(await data(ROGUES(TF(32, at(151))))).toEqual({
      rogueAPs: [rogue({ wiredPortNumber: 14, firstObservedAt: at(150), lastObservedAt: at(150), observers: [{ ssid: 'FreeWiFi', rssi: -70, observedAt: at(150), virtualDevice: { UUID: IDS.acmeAp } }] })],
    });
  });

  it('keeps the history as intervals, writing what changed: one per entry and port, not one per report', async () => {
    expect(await history()).toEqual([
      { mac_address: AP_MAC, port_number: 1, first_seen_at: at(0), gone_at: null },
      { mac_address: ROGUE_WIRED, port_number: 12, first_seen_at: at(0), gone_at: at(60) },
      { mac_address: ROGUE_WIRED, port_number: 14, first_seen_at: at(60), gone_at: at(120) },
    ]);
  });

  it('steps through every table of one request in order: a backfill keeps each time an entry left and came back', async () => {
    // one request: plugged at 200, gone at 230, back at 260, heard at 215 and 240
    setClock(270);
    await post([
      table(260, [entry(AP_MAC, 1), entry(LATER_WIRED, 5)]),
      scan(240, [heard(LATER, null, -65)]),
      table(230, [entry(AP_MAC, 1)]),
      scan(215, [heard(LATER, null, -66)]),
      table(200, [entry(AP_MAC, 1), entry(LATER_WIRED, 5)]),
    ]);
    expect((await history()).filter((r) => r.mac_address === LATER_WIRED)).toEqual([
      { mac_address: LATER_WIRED, port_number: 5, first_seen_at: at(200), gone_at: at(230) },
      { mac_address: LATER_WIRED, port_number: 5, first_seen_at: at(260), gone_at: null },
    ]);
    // heard at 240 while it was off the wire: [231, 260) lists nothing; [200, 231) lists it
    const later = (overrides: Record<string, unknown>) => ({ networkUUID: IDS.acmeHq, BSSID: LATER, ssid: null, wiredMACAddress: LATER_WIRED, wiredPortNumber: 5, ...overrides });
    expect(await data(ROGUES(TF(29, at(260))))).toEqual({ rogueAPs: [] });
    expect(await data(ROGUES(TF(31, at(231))))).toEqual({
      rogueAPs: [later({ firstObservedAt: at(215), lastObservedAt: at(215), observers: [{ ssid: null, rssi: -66, observedAt: at(215), virtualDevice: { UUID: IDS.acmeAp } }] })],
    });
    // the latest table's entry dates from its return
    expect(await data(MAC_TABLE)).toEqual({
      switchMACTable: [
        { macAddress: AP_MAC, vlanID: 10, portNumber: 1, updatedAt: at(0) },
        { macAddress: LATER_WIRED, vlanID: 10, portNumber: 5, updatedAt: at(260) },
      ],
    });
  });

  it('seeds the history from the latest tables when migration 0038 runs', async () => {
    const db = app.server.store.db;
    await sql`DROP TABLE switch_mac_history`.execute(db);
    await migration0038(db as Kysely<unknown>, app.server.store.dialect);
    // every entry of the latest tables is an interval open since its updatedAt
    expect(await history()).toEqual([
      { mac_address: AP_MAC, port_number: 1, first_seen_at: at(0), gone_at: null },
      { mac_address: LATER_WIRED, port_number: 5, first_seen_at: at(260), gone_at: null },
    ]);
    // and ingest closes a seeded interval at the first table without it
    setClock(300);
    await post([table(300, [entry(AP_MAC, 1)])]);
    expect((await history()).filter((r) => r.mac_address === LATER_WIRED)).toEqual([{ mac_address: LATER_WIRED, port_number: 5, first_seen_at: at(260), gone_at: at(300) }]);
  });

  it('deletes an interval once it ended before the raw retention, and keeps the open ones', async () => {
    // 48 hours after 300 the closed interval is at the edge; a second later it is past
    setClock(300 + 48 * 3600);
    await app.server.services.reports.expire();
    expect((await history()).map((r) => r.first_seen_at)).toEqual([at(0), at(260)]);
    setClock(300 + 48 * 3600 + 1);
    await app.server.services.reports.expire();
    expect(await history()).toEqual([{ mac_address: AP_MAC, port_number: 1, first_seen_at: at(0), gone_at: null }]);
  });
});

/** One network of an access point and a switch, the fixture's HQ, simulated every 5 minutes. */
const FLEET_INTERVAL = 300;
const HOUR = 3600;

/** The seconds of an ISO time. */
const secondsOf = (iso: string): number => Date.parse(iso) / 1000;

describe.each(storeKinds())('the simulated rogue access point over two days on %s', (kind) => {
  let app: TestApp;
  const start = REPORT_EPOCH / 1000;
  const end = start + 48 * HOUR;
  const clock = createTestClock(REPORT_EPOCH);
  const sent: SimulatedReport[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now, backgroundWork: false });
    const key = await createScopedKey(app, 'ingest');
    const fleet = createFleet(
      [
        {
          id: IDS.acmeHq,
          vlans: [{ vlanID: 10, name: 'Corp' }],
          ssids: ['Acme-Corp'],
          devices: [
            { serialNumber: SERIALS.acmeSwitch, deviceType: 'SWITCH', deviceModel: 'SW-48P' },
            { serialNumber: SERIALS.acmeAp, deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7' },
          ],
        },
      ],
      { seed: 32, intervalSeconds: FLEET_INTERVAL },
    );
    // an hour of reports a request, the clock at the hour's end, as a live fleet would post them
    for (let hour = start; hour < end; hour += HOUR) {
      const batch: SimulatedReport[] = [];
      for (let t = hour; t < hour + HOUR; t += FLEET_INTERVAL) batch.push(...fleet.reportsAt(t));
      clock.advance((hour + HOUR - FLEET_INTERVAL) * 1000 - clock.now());
      const response = await postReports(app, key, batch);
      expect(response.body).toMatchObject({ accepted: batch.length, rejected: [] });
      sent.push(...batch);
    }
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  it('answers, for the last 24 hours, every rogue that was heard and on the wire in them, unplugged ones too', async () => {
    const now = secondsOf(sent.at(-1)?.observedAt as string);
    const from = now - 24 * HOUR;
    // on the wire, from the switch's tables: each MAC address from a table listing it until the next table without it
    const tables = sent.filter((r) => r.macTable !== undefined).sort((a, b) => secondsOf(a.observedAt) - secondsOf(b.observedAt));
    const wired: { mac: string; port: number; since: number; until: number }[] = [];
    const open = new Map<string, { port: number; since: number }>();
    for (const t of tables) {
      const listed = new Map((t.macTable ?? []).map((e) => [e.macAddress, e.portNumber]));
      for (const [mac, held] of open) {
        if (listed.get(mac) !== held.port) {
          wired.push({ mac, ...held, until: secondsOf(t.observedAt) });
          open.delete(mac);
        }
      }
      for (const [mac, port] of listed) if (!open.has(mac)) open.set(mac, { port, since: secondsOf(t.observedAt) });
    }
    for (const [mac, held] of open) wired.push({ mac, ...held, until: Infinity });
    const own = new Set(sent.map((r) => r.macAddress).filter((m) => m !== undefined));
    // heard in the window, by BSSID: first and last time
    const heardIn = new Map<string, { first: number; last: number }>();
    for (const r of sent) {
      const t = secondsOf(r.observedAt);
      if (t < from || t >= now) continue;
      for (const b of r.foreignBSSIDs ?? []) {
        const seen = heardIn.get(b.BSSID);
        heardIn.set(b.BSSID, { first: Math.min(seen?.first ?? t, t), last: Math.max(seen?.last ?? t, t) });
      }
    }
    const expected = [...heardIn]
      .map(([bssid, times]) => ({ bssid, times, wire: wired.filter((w) => w.mac.slice(0, 14) === bssid.slice(0, 14) && !own.has(w.mac) && w.since < now && w.until > from) }))
      .filter((e) => e.wire.length > 0)
      .sort((a, b) => b.times.last - a.times.last || (a.bssid < b.bssid ? -1 : 1));
    const latest = new Set((tables.at(-1)?.macTable ?? []).map((e) => e.macAddress));
    // the window holds rogues that were unplugged before its end: those the latest table alone would miss
    const unplugged = expected.filter((e) => e.wire.every((w) => !latest.has(w.mac)));
    expect(unplugged.length).toBeGreaterThan(0);

    const res = await app.graphql(
      `{ r: rogueAccessPointsObservedOnNetwork(networkUUIDs: ["${IDS.acmeHq}"], filter: ${TF(86400, new Date(now * 1000).toISOString())}, limit: 500) { BSSID wiredMACAddress wiredPortNumber firstObservedAt lastObservedAt } }`,
    );
    expect(res.body.errors).toBeUndefined();
    const iso = (s: number) => new Date(s * 1000).toISOString();
    expect(res.body.data.r).toEqual(
      expected.map((e) => {
        const mac = e.wire.map((w) => w.mac).sort()[0] as string;
        const port = e.wire.filter((w) => w.mac === mac).sort((a, b) => b.since - a.since)[0]?.port;
        return { BSSID: e.bssid, wiredMACAddress: mac, wiredPortNumber: port, firstObservedAt: iso(e.times.first), lastObservedAt: iso(e.times.last) };
      }),
    );
    // and switchMACTable, the latest table, lists none of the unplugged ones
    const table = await app.graphql(`{ switchMACTable(virtualDeviceUUID: "${IDS.acmeSwitch}") { macAddress } }`);
    const listed = new Set(table.body.data.switchMACTable.map((e: { macAddress: string }) => e.macAddress));
    for (const e of unplugged) for (const w of e.wire) expect(listed.has(w.mac)).toBe(false);
  });
});
