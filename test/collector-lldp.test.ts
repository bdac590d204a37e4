import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { JsonTree, TestApp } from './helpers/app.js';
import { startNetgraph, stopNetgraph } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { buildLldpNetwork, canBuildLldpNetwork } from './helpers/lldp-network.js';
import type { LldpNetwork } from './helpers/lldp-network.js';
import { createScopedKey } from './helpers/reports.js';
import { TOPOLOGY_QUERY as TOPOLOGY } from './helpers/root-queries.js';
import { storeKinds } from './helpers/stores.js';

// The collector reads LLDP-MIB and HOST-RESOURCES-MIB from real agents: two
// namespaces joined by a veth, each with snmpd as AgentX master and lldpd
// exporting LLDP-MIB to it (test/helpers/lldp-network.ts). The API answers
// each port's neighbour and the network's links with both ends resolved:
// the switch by its MAC address (lldpd's chassis id is the MAC the collector
// reports as the device's), the access point by its label (its chassis id is
// another interface's MAC; its LLDP system name is its label).
const AVAILABLE = canBuildLldpNetwork();
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the LLDP collector test: it needs root, iproute2, snmpd, snmpbulkwalk and lldpd (.ci/run installs them)');

const AP_LABEL = 'netgraph-lldp-ap';

describe.skipIf(!AVAILABLE)('netgraph collector reads LLDP neighbours, CPU and memory from real agents', () => {
  let network: LldpNetwork;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-collector-lldp-'));
    network = await buildLldpNetwork([
      { hostname: 'netgraph-lldp-switch', chassis: 'first-interface' },
      { hostname: AP_LABEL, chassis: 'other-interface' },
    ]);
  }, 60_000);
  afterAll(async () => {
    await network?.destroy();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe.each(storeKinds())('reporting to netgraph on %s', (kind) => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture() });
      const relabel = await app.graphql(`mutation { updateVirtualDevice(input: { virtualDeviceUUID: "${IDS.acmeAp}", label: "${AP_LABEL}" }) { virtualDevice { label } } }`, {
        key: await createScopedKey(app, 'read_write'),
      });
      expect(relabel.body.errors).toBeUndefined();
    });
    afterAll(async () => {
      await app?.close();
    });

    it('answers each port\'s neighbour and the network\'s links with both ends resolved, and the memory', async () => {
      const [sw, ap] = network.devices;
      const config = path.join(dir, `collector-${kind}.json`);
      const snmp = { version: '2c', community: 'public' };
      fs.writeFileSync(
        config,
        JSON.stringify({
          server: app.url,
          apiKey: await createScopedKey(app, 'ingest'),
          spoolDir: path.join(dir, `spool-${kind}`),
          devices: [
            { host: sw.address, serialNumber: SERIALS.acmeSwitch, snmp },
            { host: ap.address, serialNumber: SERIALS.acmeAp, snmp },
          ],
        }),
      );
      const { child, result } = startNetgraph(['collector', '--config', config], { LOG_LEVEL: 'info' });
      const links = async () => ((await app.graphql(TOPOLOGY, { variables: { network: IDS.acmeHq } })).body.data?.networkTopology as JsonTree[] | undefined) ?? [];
      try {
        const deadline = Date.now() + 20_000;
        while ((await links()).length < 2) {
          if (Date.now() > deadline) throw new Error('timed out waiting for the links');
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        const stopped = await stopNetgraph(child, result);
        expect(stopped.stderr).not.toContain('poll failed');
      }
      const link0 = (device: typeof sw) => device.links.find((l) => l.ifname === 'link0');
      const end = (device: typeof sw, uuid: string) => ({ portNumber: link0(device)?.ifindex, virtualDeviceUUID: uuid });
      const expected = [
        {
          virtualDevice: { UUID: IDS.acmeSwitch },
          phyInterface: { portNumber: link0(sw)?.ifindex, label: 'link0' },
          neighbor: {
            chassisID: ap.chassisMac,
            // lldpd's port id is the port's MAC address, its description the interface's name
            portID: link0(ap)?.address,
            portDescription: 'link0',
            systemName: AP_LABEL,
            remoteDevice: { UUID: IDS.acmeAp },
            remotePhyInterface: end(ap, IDS.acmeAp),
          },
        },
        {
          virtualDevice: { UUID: IDS.acmeAp },
          phyInterface: { portNumber: link0(ap)?.ifindex, label: 'link0' },
          neighbor: {
            chassisID: sw.chassisMac,
            portID: link0(sw)?.address,
            portDescription: 'link0',
            systemName: 'netgraph-lldp-switch',
            remoteDevice: { UUID: IDS.acmeSwitch },
            remotePhyInterface: end(sw, IDS.acmeSwitch),
          },
        },
      ].sort((a, b) => (a.virtualDevice.UUID < b.virtualDevice.UUID ? -1 : 1));
      expect(await links()).toEqual(expected);

      const ports = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { label lldpNeighbor { systemName remoteDevice { label } } } }`);
      expect(ports.body.data.phyInterfacesForVirtualDevice).toEqual([
        { label: 'mgmt0', lldpNeighbor: null },
        { label: 'link0', lldpNeighbor: { systemName: AP_LABEL, remoteDevice: { label: AP_LABEL } } },
      ].sort((a, b) => (linkIndex(sw, a.label) ?? 0) - (linkIndex(sw, b.label) ?? 0)));

      // net-snmp's agent: the RAM entry of hrStorageTable is /proc/meminfo's MemTotal in KiB
      for (const uuid of [IDS.acmeSwitch, IDS.acmeAp]) {
        const device = (await app.graphql(`{ virtualDevice(UUID: "${uuid}") { memoryUsedBytes memoryTotalBytes } }`)).body.data.virtualDevice as Record<string, number>;
        expect(device.memoryTotalBytes).toBe(memTotal());
        expect(device.memoryUsedBytes).toBeGreaterThan(0);
        expect(device.memoryUsedBytes).toBeLessThanOrEqual(memTotal());
      }
    }, 60_000);
  });

  // net-snmp's agent answers hrProcessorLoad (a one-minute average) only once it has run a minute, so this waits for that
  it('reports the CPU load once the agent has it, and it reaches the API', async () => {
    const [sw] = network.devices;
    const loads = () => execFileSync('/usr/bin/snmpbulkwalk', ['-v2c', '-c', 'public', '-Oqv', sw.address, '1.3.6.1.2.1.25.3.3.1.2'], { encoding: 'utf8' }).trim().split('\n').map(Number);
    while (loads().some((l) => Number.isNaN(l))) await new Promise((resolve) => setTimeout(resolve, 1000));
    const app = await startTestApp('sqlite', { data: createFixture() });
    try {
      const config = path.join(dir, 'collector-cpu.json');
      const device = { host: sw.address, serialNumber: SERIALS.acmeSwitch, snmp: { version: '2c', community: 'public' } };
      fs.writeFileSync(config, JSON.stringify({ server: app.url, apiKey: await createScopedKey(app, 'ingest'), spoolDir: path.join(dir, 'spool-cpu'), devices: [device] }));
      const { child, result } = startNetgraph(['collector', '--config', config], {});
      const cpu = async () => (await app.graphql(`{ virtualDevice(UUID: "${IDS.acmeSwitch}") { cpuUsagePercent } }`)).body.data?.virtualDevice?.cpuUsagePercent as number | null;
      try {
        const deadline = Date.now() + 20_000;
        while ((await cpu()) === null) {
          if (Date.now() > deadline) throw new Error('timed out waiting for the CPU load');
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        await stopNetgraph(child, result);
      }
      const reported = (await cpu()) as number;
      expect(reported).toBeGreaterThanOrEqual(0);
      expect(reported).toBeLessThanOrEqual(100);
    } finally {
      await app.close();
    }
  }, 120_000);
});

function memTotal(): number {
  return Number(/MemTotal:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1]) * 1024;
}

function linkIndex(device: { links: readonly { ifname: string; ifindex: number }[] }, name: string): number | undefined {
  return device.links.find((l) => l.ifname === name)?.ifindex;
}
