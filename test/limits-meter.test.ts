import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COMPANY_SLUG } from '../src/tools/demo/demo-simulator.js';
import { fleetNetworksOf } from '../src/tools/simulator/simulator.fleet.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { REPORT_EPOCH } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { storedReports } from './helpers/stored-reports.js';

// issue 32: scripts written for Meter's API, at the scale of the demo data and the documented limits, are never THROTTLED.

/** The documented limits, in place of the test helper's unreachable ones. */
const DEFAULT_LIMITS = { RATE_LIMIT_REQUESTS: '500', COMPLEXITY_BUDGET: '750' };
/** A request's round trip to a hosted API and the script's own work: the pace of a script that sends its calls back to back. */
const CALL_MS = 100;
/** How often a dashboard refreshes its six queries. */
const REFRESH_MS = 10_000;

const NETWORKS = '{ networksForCompany(companySlug: "acme") { UUID label slug } }';
const DEVICES = 'query ($n: UUID!) { virtualDevicesForNetwork(networkUUID: $n) { UUID label deviceType deviceModel isOnline hardwareDevice { serialNumber isConnectedToBackend } } }';
const CLIENTS =
  'query ($n: UUID!) { networkClients(networkUUID: $n) { macAddress ip clientName isWireless signal lastSeen connectedVLAN { name vlanID } connectedSSID { ssid } accessPoint { label } } }';
const EVENTS = 'query ($n: UUID!) { recentEventLogEventsPage(networkUUID: $n, limit: 20) { total events { eventType eventTypeAPIName generatedAt details virtualDevice { label } } } }';
const PORTS =
  'query ($d: UUID!) { phyInterfacesForVirtualDevice(virtualDeviceUUID: $d) { UUID portNumber label portType isEnabled isConnected isTrunkPort isUplink isUplinkActive portSpeedMbps nativeVLAN { vlanID } } }';
/** A network dashboard's refresh: six queries. */
const DASHBOARD = [
  'query ($n: UUID!) { network(UUID: $n) { UUID label slug isActive mailingAddress { city subdivisionCode } } }',
  DEVICES,
  CLIENTS,
  'query ($n: UUID!) { uplinkPhyInterfacesForNetwork(networkUUID: $n) { UUID label portNumber portType isUplinkActive portSpeedMbps virtualDeviceUUID } }',
  'query ($n: UUID!) { networkUplinkQuality(networkUUID: $n, filter: { durationSeconds: 3600, stepSeconds: 300 }) { metadata { minValue maxValue } values { timestamp value phyInterfaceUUID } } }',
  EVENTS,
];

/** Resolves once every device of the demo company has reported at `at` (the simulator's backfill reached it). */
async function untilReported(app: TestApp, at: number): Promise<void> {
  const { services } = app.server;
  const company = (await services.imports.export(DEMO_COMPANY_SLUG)).companies[0];
  if (company === undefined) throw new Error('no demo company');
  const serials = fleetNetworksOf(company).flatMap((network) => network.devices.map((device) => device.serialNumber));
  const companyId = (await services.companies.getBySlug(DEMO_COMPANY_SLUG)).id;
  for (let attempt = 0; attempt < 1200; attempt++) {
    const stored = storedReports(app.server.store.db);
    const seen = await Promise.all(serials.map(async (serial) => (await stored.deviceState(companyId, serial))?.lastSeenAt));
    if (seen.every((lastSeen) => lastSeen != null && Date.parse(lastSeen) === at)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the demo simulator did not catch up');
}

describe.each(storeKinds())('a Meter-shaped script on the demo data on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    // the demo company, with a day of reports from its simulator (every 30 minutes, to keep the backfill short)
    app = await startTestApp(kind, { env: { ...DEFAULT_LIMITS, DEMO_DATA: 'on' }, clock: clock.now, demoSimulator: { intervalSeconds: 1800, pollMs: 10 } });
    await untilReported(app, REPORT_EPOCH);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('walks a network and refreshes its dashboard at a natural pace without ever being THROTTLED', async () => {
    const key = await app.createKey('acme');
    const answers: { status: number; requested: number; actual: number }[] = [];
    const call = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await app.request('/api/v1/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables, extensions: { cost: true } }),
      });
      clock.advance(CALL_MS);
      answers.push({ status: response.status, requested: response.body.extensions?.cost.requested, actual: Number(response.headers.get('x-complexity-cost')) });
      return response.body.data;
    };
    const walk = async () => {
      const networks = (await call(NETWORKS)).networksForCompany as { UUID: string }[];
      const n = (networks[0] as { UUID: string }).UUID;
      const devices = (await call(DEVICES, { n })).virtualDevicesForNetwork as { UUID: string }[];
      await call(CLIENTS, { n });
      await call(EVENTS, { n });
      for (const device of devices) await call(PORTS, { d: device.UUID });
      return n;
    };
    const n = await walk();
    for (let refresh = 0; refresh < 6; refresh++) {
      for (const query of DASHBOARD) await call(query, { n });
      clock.advance(REFRESH_MS - DASHBOARD.length * CALL_MS);
    }
    await walk();

    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(answers).toHaveLength(2 * 12 + 6 * DASHBOARD.length);
    for (const answer of answers) expect(answer.actual).toBeLessThanOrEqual(answer.requested);
    // the demo's first network: 8 devices, dozens of clients; the ports of an access point cost 14 rather than 62
    const requested = answers.reduce((sum, answer) => sum + answer.requested, 0);
    const actual = answers.reduce((sum, answer) => sum + answer.actual, 0);
    expect(actual).toBeLessThan(requested);
  }, 60_000);
});
