import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonTree } from './helpers/app.js';
import { runNetgraph } from './helpers/cli.js';
import { buildBridgeNetwork, canBuildNetworks, linksOf, startAgent } from './helpers/netns.js';
import type { BridgeNetwork, TestAgent } from './helpers/netns.js';

// The collector reads a real Linux bridge's forwarding table over SNMP. Stock
// snmpd has no BRIDGE-MIB for a Linux bridge, so test/fixtures/bridge-mib.py
// serves the kernel's table (`bridge fdb`) through snmpd's pass_persist. The
// kernel here has no VLAN filtering, so this is BRIDGE-MIB's dot1dTpFdbTable
// (no VLANs); Q-BRIDGE-MIB's decoding is covered by src/collector/collector.test.ts.
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
});
