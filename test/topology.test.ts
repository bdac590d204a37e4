import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createTestClock } from './helpers/clock.js';
import type { TestClock } from './helpers/clock.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { REPORT_EPOCH, createScopedKey, postReports, report } from './helpers/reports.js';
import { TOPOLOGY_QUERY as TOPOLOGY } from './helpers/root-queries.js';
import { storeKinds } from './helpers/stores.js';

// LLDP neighbours and CPU/memory (issue 30): reported per port and per device, answered by
// PhyInterface.lldpNeighbor, networkTopology and VirtualDevice's cpu/memory fields (docs/reports.md, docs/schema.md).

const SWITCH_MAC = '0c:8d:db:00:00:01';
const AP_MAC = '0c:8d:db:00:00:02';
const LAB_AP_MAC = '0c:8d:db:00:00:03';


const port = (portNumber: number, label: string, lldpNeighbor?: Record<string, unknown> | null) => ({
  portNumber,
  label,
  isConnected: true,
  ...(lldpNeighbor === undefined ? {} : { lldpNeighbor }),
});

describe.each(storeKinds())('LLDP topology and CPU/memory on %s', (kind) => {
  let app: TestApp;
  let clock: TestClock;
  let ingestKey: string;
  let globexKey: string;
  const now = () => new Date(clock.now()).toISOString();
  const post = async (reports: Record<string, unknown>[]) => {
    const response = await postReports(app, ingestKey, reports);
    expect(response.status).toBe(200);
    return response.body as { accepted: number; rejected: { index: number; path: string; message: string }[] };
  };

  beforeAll(async () => {
    clock = createTestClock(REPORT_EPOCH);
    app = await startTestApp(kind, { data: createFixture(), clock: clock.now });
    ingestKey = await createScopedKey(app, 'ingest');
    globexKey = await app.createKey('globex');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers no links and no CPU/memory before any report', async () => {
    expect((await app.graphql(TOPOLOGY, { variables: { network: IDS.acmeHq } })).body).toEqual({ data: { networkTopology: [] } });
    const device = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeSwitch}") { cpuUsagePercent memoryUsedBytes memoryTotalBytes } }`);
    expect(device.body).toEqual({ data: { virtualDevice: { cpuUsagePercent: null, memoryUsedBytes: null, memoryTotalBytes: null } } });
  });

  it('resolves each neighbour to the network\'s device by MAC address, else by label, and its port by label; never across networks', async () => {
    const body = await post([
      report(SERIALS.acmeSwitch, now(), {
        macAddress: SWITCH_MAC,
        cpuPercent: 37.5,
        memoryUsedBytes: 3_000_000_000,
        memoryTotalBytes: 8_000_000_000,
        interfaces: [
          // the AP, by its MAC address (sent in capitals: stored lowercase), its port by portDescription
          port(1, 'ge-1', { chassisID: AP_MAC.toUpperCase(), portID: '02:00:00:00:00:09', portDescription: 'eth0', systemName: 'ap-lobby' }),
          // the observer by its label (it has no hardware)
          port(2, 'ge-2', { chassisID: 'observer-chassis', portID: null, systemName: 'Observer 🛰' }),
          // a host netgraph does not know
          port(3, 'ge-3', { chassisID: '10.1.2.3', portID: 'eno1', systemName: 'build-server' }),
          // the Lab network's AP: another network, so unresolved
          port(4, 'ge-4', { chassisID: LAB_AP_MAC, portID: 'eth0' }),
          port(5, 'ge-5', null),
          port(6, 'ge-6'),
        ],
      }),
      report(SERIALS.acmeAp, now(), { macAddress: AP_MAC, interfaces: [port(1, 'eth0', { chassisID: SWITCH_MAC, portID: 'ge-1', systemName: 'core' })] }),
      report(SERIALS.acmeLabAp, now(), { macAddress: LAB_AP_MAC }),
    ]);
    expect(body).toEqual({ accepted: 3, duplicates: 0, rejected: [] });

    const links = (await app.graphql(TOPOLOGY, { variables: { network: IDS.acmeHq } })).body.data.networkTopology;
    const ap = { virtualDevice: { UUID: IDS.acmeAp } };
    const sw = { virtualDevice: { UUID: IDS.acmeSwitch } };
    const expected = [
      { ...sw, phyInterface: { portNumber: 1, label: 'ge-1' }, neighbor: { chassisID: AP_MAC, portID: '02:00:00:00:00:09', portDescription: 'eth0', systemName: 'ap-lobby', remoteDevice: { UUID: IDS.acmeAp }, remotePhyInterface: { portNumber: 1, virtualDeviceUUID: IDS.acmeAp } } },
      { ...sw, phyInterface: { portNumber: 2, label: 'ge-2' }, neighbor: { chassisID: 'observer-chassis', portID: null, portDescription: null, systemName: 'Observer 🛰', remoteDevice: { UUID: IDS.acmeObserver }, remotePhyInterface: null } },
      { ...sw, phyInterface: { portNumber: 3, label: 'ge-3' }, neighbor: { chassisID: '10.1.2.3', portID: 'eno1', portDescription: null, systemName: 'build-server', remoteDevice: null, remotePhyInterface: null } },
      { ...sw, phyInterface: { portNumber: 4, label: 'ge-4' }, neighbor: { chassisID: LAB_AP_MAC, portID: 'eth0', portDescription: null, systemName: null, remoteDevice: null, remotePhyInterface: null } },
      { ...ap, phyInterface: { portNumber: 1, label: 'eth0' }, neighbor: { chassisID: SWITCH_MAC, portID: 'ge-1', portDescription: null, systemName: 'core', remoteDevice: { UUID: IDS.acmeSwitch }, remotePhyInterface: { portNumber: 1, virtualDeviceUUID: IDS.acmeSwitch } } },
    ];
    // by virtual device UUID, then port number
    expect(links).toEqual([...expected].sort((a, b) => (a.virtualDevice.UUID < b.virtualDevice.UUID ? -1 : a.virtualDevice.UUID > b.virtualDevice.UUID ? 1 : 0)));

    const ports = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { portNumber lldpNeighbor { chassisID remoteDevice { label } } } }`);
    expect(ports.body.data.phyInterfacesForVirtualDevice).toEqual([
      { portNumber: 1, lldpNeighbor: { chassisID: AP_MAC, remoteDevice: { label: 'AP "lobby"\n2nd line' } } },
      { portNumber: 2, lldpNeighbor: { chassisID: 'observer-chassis', remoteDevice: { label: 'Observer 🛰' } } },
      { portNumber: 3, lldpNeighbor: { chassisID: '10.1.2.3', remoteDevice: null } },
      { portNumber: 4, lldpNeighbor: { chassisID: LAB_AP_MAC, remoteDevice: null } },
      { portNumber: 5, lldpNeighbor: null },
      { portNumber: 6, lldpNeighbor: null },
    ]);
    const device = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeSwitch}") { cpuUsagePercent memoryUsedBytes memoryTotalBytes } }`);
    expect(device.body).toEqual({ data: { virtualDevice: { cpuUsagePercent: 37.5, memoryUsedBytes: 3_000_000_000, memoryTotalBytes: 8_000_000_000 } } });
  });

  it('keeps CPU/memory a report leaves out, clears what one sends as null, and drops a neighbour the next port list does not have', async () => {
    clock.advance(10_000);
    await post([report(SERIALS.acmeSwitch, now(), { cpuPercent: 5, memoryTotalBytes: null, interfaces: [port(1, 'ge-1')] })]);
    const device = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeSwitch}") { cpuUsagePercent memoryUsedBytes memoryTotalBytes } }`);
    expect(device.body).toEqual({ data: { virtualDevice: { cpuUsagePercent: 5, memoryUsedBytes: 3_000_000_000, memoryTotalBytes: null } } });
    const links = (await app.graphql(TOPOLOGY, { variables: { network: IDS.acmeHq } })).body.data.networkTopology as { virtualDevice: { UUID: string } }[];
    expect(links.map((l) => l.virtualDevice.UUID)).toEqual([IDS.acmeAp]);
  });

  it('answers another company\'s network with null and UNAUTHORIZED', async () => {
    const response = await app.graphql(TOPOLOGY, { variables: { network: IDS.acmeHq }, key: globexKey });
    expect(response.body.data).toEqual({ networkTopology: null });
    expect(response.body.errors?.[0]).toMatchObject({ path: ['networkTopology'], extensions: { code: 'UNAUTHORIZED' } });
  });

  it('refuses a report with a bad neighbour or memory at the field\'s path, and stores nothing of it', async () => {
    clock.advance(10_000);
    const body = await post([
      report(SERIALS.acmeSwitch, now(), { interfaces: [port(1, 'ge-1', { chassisID: '' })] }),
      report(SERIALS.acmeSwitch, now(), { interfaces: [port(1, 'ge-1', { chassisID: 'x', systemName: 'y'.repeat(256) })] }),
      report(SERIALS.acmeSwitch, now(), { interfaces: [port(1, 'ge-1', 'not an object' as never)] }),
      report(SERIALS.acmeSwitch, now(), { memoryUsedBytes: 9, memoryTotalBytes: 8 }),
      report(SERIALS.acmeSwitch, now(), { cpuPercent: 100.5 }),
    ]);
    expect(body.rejected.map((r) => [r.index, r.path, r.message])).toEqual([
      [0, 'reports[0].interfaces[0].lldpNeighbor.chassisID', 'is required: a non-empty string'],
      [1, 'reports[1].interfaces[0].lldpNeighbor.systemName', 'is longer than 255 characters'],
      [2, 'reports[2].interfaces[0].lldpNeighbor', 'must be a JSON object'],
      [3, 'reports[3].memoryUsedBytes', 'is larger than memoryTotalBytes (8): send the memory in use and the memory installed, both in bytes'],
      [4, 'reports[4].cpuPercent', 'must be a number from 0 to 100, or null'],
    ]);
    const device = await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeSwitch}") { cpuUsagePercent memoryUsedBytes } }`);
    expect(device.body).toEqual({ data: { virtualDevice: { cpuUsagePercent: 5, memoryUsedBytes: 3_000_000_000 } } });
  });
});
