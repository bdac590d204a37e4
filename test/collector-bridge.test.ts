import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonTree } from './helpers/app.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, postReports } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';
import { buildBridgeNetwork, canBuildNetworks, inNamespace, linksOf, startAgent } from './helpers/netns.js';
import type { BridgeNetwork, TestAgent } from './helpers/netns.js';

// The collector reads a real Linux bridge's forwarding table over SNMP. Stock
// snmpd has no BRIDGE-MIB for a Linux bridge, so test/fixtures/bridge-mib.py
// serves the kernel's table (`bridge fdb`) through snmpd's pass_persist. The
// kernel here has no VLAN filtering, so this is BRIDGE-MIB's dot1dTpFdbTable
// (no VLANs); Q-BRIDGE-MIB's decoding is covered by src/collector/collector.test.ts.
// Spanning tree: a loop on the bridge with the kernel's STP on; the fixture serves
// its ports' states (/sys/class/net/br0/brif/*/state) as dot1dStpPortState.
// Spanning tree: a loop on the bridge with the kernel's STP, whose port states the fixture serves as dot1dStpPortState.
const AVAILABLE = canBuildNetworks() && fs.existsSync('/usr/sbin/bridge') && fs.existsSync('/usr/bin/python3');
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the collector tests: they need root, iproute2 (ip, bridge), python3, snmpd and snmpget');

const FIXTURE = fileURLToPath(new URL('./fixtures/bridge-mib.py', import.meta.url));

describe.skipIf(!AVAILABLE)("netgraph collector reads a bridge's MAC table", () => {
  let network: BridgeNetwork;
  let agent: TestAgent;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-bridge-'));
    network = buildBridgeNetwork();
    await network.learnClients();
    agent = await startAgent(network.device, network.deviceAddress, [`pass_persist .1.3.6.1.2.1.17 ${FIXTURE}`]);
  });
  afterAll(async () => {
    await agent?.stop();
    network?.destroy();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports the learned entries of `bridge fdb`, each on the ifIndex of its port, and each client on its port with its ARP address', async () => {
    const file = path.join(dir, 'collector.json');
    const device = { host: network.deviceAddress, serialNumber: 'M1A3-SW00-0001', uplinks: [], snmp: { version: '2c', community: 'public' } };
    fs.writeFileSync(file, JSON.stringify({ server: 'http://127.0.0.1:1', apiKey: 'unused', spoolDir: path.join(dir, 'spool'), devices: [device] }));
    const result = await runNetgraph(['collector', '--config', file, '--once', '--json'], {});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [outcome] = (JSON.parse(result.stdout) as { devices: { error: string | null; report: JsonTree | null }[] }).devices;
    expect(outcome?.error).toBeNull();

    const ifIndexOf = new Map(linksOf(network.device).map((l) => [l.ifname, l.ifindex]));
    // what the kernel learned: the bridge's own (permanent) addresses and the ports' own tables are not learned entries
    const learned = network
      .fdb()
      .filter((e) => e.master === 'br0' && (e.state ?? '') === '')
      .map((e) => ({ macAddress: e.mac, vlanID: null, portNumber: ifIndexOf.get(e.ifname) }));
    const byMac = (a: { macAddress: unknown }, b: { macAddress: unknown }) => String(a.macAddress).localeCompare(String(b.macAddress));
    expect(learned.map((e) => e.macAddress).sort()).toEqual([...network.clientMacs].sort());
    expect([...(outcome?.report?.macTable as { macAddress: string }[])].sort(byMac)).toEqual(learned.sort(byMac));
    // each client on its own port's ifIndex, which is not its bridge port number
    expect(learned.find((e) => e.macAddress === network.clientMacs[0])?.portNumber).toBe(ifIndexOf.get(network.ports[0]!));
    expect(learned.find((e) => e.macAddress === network.clientMacs[1])?.portNumber).toBe(ifIndexOf.get(network.ports[1]!));

    // the wired clients: on the access port the bridge learned them on (no uplinks, no LLDP neighbours here), not on
    // br0 where ARP has them, with their IP addresses from ARP; BRIDGE-MIB has no VLANs (the other IP neighbour, this
    // host on the management link, stays on mgmt0's ifIndex, as no bridge port learned it)
    const clients = (outcome?.report?.clients as { macAddress: string }[]).filter((c) => network.clientMacs.includes(c.macAddress)).sort(byMac);
    const expected = network.clientMacs.map((macAddress, i) => ({
      macAddress,
      ip: network.clientAddresses[i],
      hostname: null,
      isWireless: false,
      portNumber: ifIndexOf.get(network.ports[i]!),
      vlanID: null,
    }));
    expect(clients).toEqual(expected.sort(byMac));
    expect(ifIndexOf.get('br0')).not.toBe(ifIndexOf.get(network.ports[0]!));
  });
  describe.each(storeKinds())("a port's spanning-tree state, reported to netgraph on %s", (kind) => {
    let app: TestApp;
    /** A loop on br0: a veth pair with both ends on the bridge, so the kernel's STP blocks one of them. */
    const LOOP = ['ngstpa', 'ngstpb'] as const;
    const inDevice = (...args: string[]) => inNamespace(network.device, ...(args as [string, ...string[]]));
    const stateOf = (port: string) => Number(inDevice('cat', `/sys/class/net/br0/brif/${port}/state`).trim());
    const waitFor = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 30_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    beforeAll(async () => {
      app = await startTestApp(kind, { data: createFixture() });
      inDevice('ip', 'link', 'add', LOOP[0], 'type', 'veth', 'peer', 'name', LOOP[1]);
      for (const port of LOOP) inDevice('ip', 'link', 'set', port, 'master', 'br0');
      // kernel STP with a 2 s forward delay (the shortest), then the loop's links up
      inDevice('ip', 'link', 'set', 'br0', 'type', 'bridge', 'stp_state', '1', 'forward_delay', '200');
      for (const port of LOOP) inDevice('ip', 'link', 'set', port, 'up');
      // kernel states: 3 forwarding, 4 blocking
      await waitFor('the loop to settle', () => stateOf(LOOP[0]) === 3 && stateOf(LOOP[1]) === 4);
    }, 60_000);
    afterAll(async () => {
      // the bridge as it was for the other tests: no loop, no STP
      inDevice('ip', 'link', 'del', LOOP[0]);
      inDevice('ip', 'link', 'set', 'br0', 'type', 'bridge', 'stp_state', '0');
      await app?.close();
    });

    /** One poll of the bridge by `netgraph collector --once --json`, posted as the collector would send it. */
    const pollAndPost = async (key: string): Promise<JsonTree> => {
      const file = path.join(dir, `collector-stp-${kind}.json`);
      const device = { host: network.deviceAddress, serialNumber: SERIALS.acmeSwitch, uplinks: [], snmp: { version: '2c', community: 'public' } };
      fs.writeFileSync(file, JSON.stringify({ server: 'http://127.0.0.1:1', apiKey: 'unused', spoolDir: path.join(dir, `spool-stp-${kind}`), devices: [device] }));
      const result = await runNetgraph(['collector', '--config', file, '--once', '--json'], {});
      expect(result.code).toBe(0);
      const report = (JSON.parse(result.stdout) as { devices: { report: JsonTree }[] }).devices[0]?.report as JsonTree;
      const posted = await postReports(app, key, [report]);
      expect(posted.body).toMatchObject({ accepted: 1, rejected: [] });
      return report;
    };

    it("reads dot1dStpPortState from the kernel: the port STP blocks is answered BLOCKING and the event log has PORT_BLOCKED", async () => {
      const key = await createScopedKey(app, 'ingest');
      const ifIndexOf = new Map(linksOf(network.device).map((l) => [l.ifname, l.ifindex]));
      const [a, b] = LOOP.map((p) => ifIndexOf.get(p) as number);
      const stpOf = (report: JsonTree) => Object.fromEntries((report.interfaces as { portNumber: number; stpState?: string }[]).map((p) => [p.portNumber, p.stpState ?? null]));
      const first = stpOf(await pollAndPost(key));
      expect([first[a!], first[b!]]).toEqual(['FORWARDING', 'BLOCKING']);
      // br0 itself and mgmt0 are no bridge ports
      expect([first[ifIndexOf.get('br0')!], first[ifIndexOf.get('mgmt0')!]]).toEqual([null, null]);

      // the other end becomes the better port: STP blocks the forwarding one at once, the other forwards after 2 x 2 s
      inDevice('sh', '-c', `echo 1 > /sys/class/net/br0/brif/${LOOP[1]}/priority; echo 1 > /sys/class/net/br0/brif/${LOOP[1]}/path_cost`);
      await waitFor('the roles to swap', () => stateOf(LOOP[0]) === 4 && stateOf(LOOP[1]) === 3);
      // the fixture caches the kernel's state for a second
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const report = await pollAndPost(key);
      const second = stpOf(report);
      expect([second[a!], second[b!]]).toEqual(['BLOCKING', 'FORWARDING']);

      const phy = await app.graphql(`{ phyInterfacesForVirtualDevice(virtualDeviceUUID: "${IDS.acmeSwitch}") { portNumber stpState } }`);
      const states = Object.fromEntries((phy.body.data.phyInterfacesForVirtualDevice as { portNumber: number; stpState: string | null }[]).map((p) => [p.portNumber, p.stpState]));
      expect([states[a!], states[b!]]).toEqual(['BLOCKING', 'FORWARDING']);
      // the blocked port is PORT_BLOCKED; the other one leaving BLOCKING had no PORT_BLOCKED before, so no PORT_UNBLOCKED
      const log = await app.graphql(`{ recentEventLogEventsPage(networkUUID: "${IDS.acmeHq}", limit: 10, typeFilter: [PORT_BLOCKED, PORT_UNBLOCKED]) { total events { eventType generatedAt details } } }`);
      expect(log.body.data.recentEventLogEventsPage).toEqual({
        total: 1,
        events: [{ eventType: 'PORT_BLOCKED', generatedAt: report.observedAt, details: JSON.stringify({ portNumber: a, label: LOOP[0], stpState: 'BLOCKING', previousStpState: 'FORWARDING' }) }],
      });
      // two runs of the CLI, each a new process
    }, 120_000);
  });
});
