import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNetgraph } from './helpers/cli.js';

// The collector against recorded walks of switches, served by snmpsim (Debian's package; .ci/run installs it):
// - Debian's own recording of a real Cisco Catalyst 3750 stack member (59 interfaces, ENTITY-MIB serials, BRIDGE-MIB,
//   ipNetToMediaTable), read from the installed package (its gzip is unzipped into snmpsim's temp folder);
// - test/fixtures/snmp/switch-qbridge.snmprec, a 6-port switch with Q-BRIDGE-MIB forwarding tables, 64-bit counters,
//   IP-MIB's ipNetToPhysicalTable and LLDP-MIB (how it was made: test/fixtures/snmp/README.md).
// Neither device's serial number is configured: each reports as its ENTITY-MIB chassis serial.
const CATALYST_3750 = '/usr/share/doc/snmpsim/examples/data/cisco_16_switch.snmprec.gz';
const SWITCH_QBRIDGE = fileURLToPath(new URL('./fixtures/snmp/switch-qbridge.snmprec', import.meta.url));
const AVAILABLE = fs.existsSync('/usr/bin/snmpsimd') && fs.existsSync(CATALYST_3750) && fs.existsSync('/usr/bin/snmpget');
if (!AVAILABLE && process.env.CI === 'true') throw new Error('CI must run the recorded-walk tests: they need snmpsim and snmp (Debian packages)');

interface Snmpsim {
  readonly host: string;
  readonly port: number;
  stop(): Promise<void>;
}
// bench/ is plain JavaScript; the recorded-walk agent is the benchmark's too
const { startSnmpsim } = (await import(new URL('../bench/lib/snmpsim.mjs', import.meta.url).href)) as {
  startSnmpsim(recordings: { community: string; text: string }[]): Promise<Snmpsim>;
};

interface Port {
  portNumber: number;
  label: string;
  isEnabled: boolean;
  isConnected: boolean;
  isUplink: boolean;
  portSpeedMbps: number | null;
  counters: Record<string, number> | null;
  lldpNeighbor: Record<string, string | null> | null;
}
interface Report {
  serialNumber: string;
  uptimeSeconds: number;
  macAddress: string | null;
  cpuPercent: number | null;
  memoryTotalBytes: number | null;
  interfaces: Port[];
  clients: { macAddress: string; ip: string | null; portNumber: number | null; vlanID?: number | null }[];
  macTable?: { macAddress: string; vlanID: number | null; portNumber: number }[];
}
interface Outcome {
  serialNumber: string | null;
  error: string | null;
  report: Report | null;
}

const counters = (rxBytes: number, txBytes: number, rxPackets: number, txPackets: number, rxErrors = 0) => ({ rxBytes, txBytes, rxPackets, txPackets, rxErrors, txErrors: 0 });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(!AVAILABLE)('netgraph collector reads recorded walks of switches (snmpsim)', () => {
  let agent: Snmpsim;
  let dir: string;
  let catalyst: Outcome;
  let qbridge: Outcome;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-recordings-'));
    agent = await startSnmpsim([
      { community: 'catalyst-3750', text: gunzipSync(fs.readFileSync(CATALYST_3750)).toString('latin1') },
      { community: 'switch-qbridge', text: fs.readFileSync(SWITCH_QBRIDGE, 'latin1') },
    ]);
    const file = path.join(dir, 'collector.json');
    const device = (community: string, uplinks: string[]) => ({ host: agent.host, port: agent.port, uplinks, snmp: { version: '2c', community } });
    fs.writeFileSync(
      file,
      JSON.stringify({ server: 'http://127.0.0.1:1', apiKey: 'unused', spoolDir: path.join(dir, 'spool'), timeoutMs: 10_000, devices: [device('catalyst-3750', []), device('switch-qbridge', ['Te1/1/1', 'Te1/1/2'])] }),
    );
    const result = await runNetgraph(['collector', '--config', file, '--once', '--json'], {});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    [catalyst, qbridge] = (JSON.parse(result.stdout) as { devices: [Outcome, Outcome] }).devices;
  }, 180_000);
  afterAll(async () => {
    await agent?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reports a Catalyst 3750 by its ENTITY-MIB chassis serial, with its uptime and first port's MAC address", () => {
    expect(catalyst.error).toBeNull();
    // entPhysicalIndex 1 is the stack (class stack(11), no serial); 3001 its chassis WS-C3750-48P
    expect(catalyst.serialNumber).toBe('CAT0952N20R');
    expect(catalyst.report?.serialNumber).toBe('CAT0952N20R');
    // sysUpTime 697202257 hundredths
    expect(catalyst.report?.uptimeSeconds).toBe(6_972_022);
    expect(catalyst.report?.macAddress).toBe('00:16:c7:02:6e:c0');
    expect(catalyst.report?.cpuPercent).toBeNull();
    expect(catalyst.report?.memoryTotalBytes).toBeNull();
  });

  it("reports the 3750's 59 interfaces with their names, statuses and speeds", () => {
    const ports = catalyst.report?.interfaces ?? [];
    expect(ports.map((p) => p.portNumber)).toEqual([1, 60, 70, 5185, 5186, 5187, ...range(11001, 11048), ...range(11101, 11104), 14501]);
    expect(ports.filter((p) => p.isConnected).map((p) => p.label)).toEqual(['Vl1', 'Vl60', 'Fa3/0/3', 'Fa3/0/7', 'Fa3/0/9', 'Fa3/0/11', 'Fa3/0/43: connected to ruckus wlc', 'Fa3/0/48', 'Nu0']);
    expect(ports.filter((p) => !p.isEnabled).map((p) => p.label)).toEqual(['StackSub-St3-1', 'StackSub-St3-2', 'Fa3/0/46', 'Fa3/0/47']);
    expect(ports.find((p) => p.portNumber === 11042)?.label).toBe('Fa3/0/42: connected to cube 12b ruckus ap');
    expect(ports.find((p) => p.portNumber === 11101)?.label).toBe('Gi3/0/1');
    // ifHighSpeed: the negotiated speed (a Gi port without a link says 10), none for the stack ports
    const bySpeed = new Map<number | null, number[]>();
    for (const p of ports) bySpeed.set(p.portSpeedMbps, [...(bySpeed.get(p.portSpeedMbps) ?? []), p.portNumber]);
    expect(Object.fromEntries([...bySpeed].map(([speed, numbers]) => [String(speed), numbers]))).toEqual({
      '1000': [1, 60, 70],
      null: [5185, 5186, 5187],
      '100': [11003, 11006, 11007, 11009, 11010, 11011, 11039, 11040, 11041, 11042, 11043, 11045, 11048],
      '10': [11001, 11002, 11004, 11005, 11008, ...range(11012, 11038), 11044, 11046, 11047, ...range(11101, 11104)],
      '10000': [14501],
    });
    expect(ports.every((p) => p.lldpNeighbor === null && !p.isUplink)).toBe(true);
  });

  it("reports the 3750's 64-bit counters, and its 32-bit ones where it has no others", () => {
    const countersOf = (portNumber: number) => catalyst.report?.interfaces.find((p) => p.portNumber === portNumber)?.counters;
    expect(countersOf(60)).toEqual(counters(37_505_809_994, 48_360_660_686, 356_458_219, 373_746_583));
    expect(countersOf(11003)).toEqual(counters(21_183_138_878, 23_506_791_758, 44_862_354, 66_547_536, 2));
    expect(countersOf(11042)).toEqual(counters(714_870_979, 1_573_906_548, 2_529_480, 1_819_659, 16));
    expect(countersOf(11048)).toEqual(counters(970_693_434_542, 76_614_543_604, 326_169_887, 424_469_727, 1));
    // StackPort3 has no ifXTable counters, only ifTable's (all 0); its sub-ports have neither
    expect(countersOf(5185)).toEqual(counters(0, 0, 0, 0));
    expect(countersOf(5186)).toBeNull();
  });

  it("reports the 3750's ARP table as clients and its bridge's learned entry, which is a client on its access port", () => {
    const clients = catalyst.report?.clients ?? [];
    // ipNetToMediaTable: 85 entries (10.204.88.0/22, all on Vl60) of 84 MAC addresses, one of them the switch's own;
    // none of them learned on a bridge port, so each stays on Vl60
    expect(clients).toHaveLength(84);
    const arp = clients.slice(0, 83);
    expect(arp.every((c) => c.portNumber === 60 && /^10\.204\.(88|89|90|91)\.\d+$/.test(c.ip ?? '') && !('vlanID' in c))).toBe(true);
    // the bridge's one learned entry (Fa3/0/48: no uplink, no LLDP neighbour) is a client on that port, without an
    // IP address (ARP has none for it) and without a VLAN (BRIDGE-MIB's table has none); this was not a client before
    expect(clients[83]).toEqual({ macAddress: '68:99:cd:a5:9f:88', ip: null, hostname: null, isWireless: false, portNumber: 11048, vlanID: null });
    expect(clients.slice(0, 2)).toEqual([
      { macAddress: '00:1f:12:30:47:00', ip: '10.204.88.1', hostname: null, isWireless: false, portNumber: 60 },
      { macAddress: '68:99:cd:a5:9f:c1', ip: '10.204.88.10', hostname: null, isWireless: false, portNumber: 60 },
    ]);
    expect(clients.some((c) => c.macAddress === '00:16:c7:02:6e:c1')).toBe(false);
    // dot1dTpFdbTable holds one learned entry, on bridge port 160: ifIndex 11048 (dot1dBasePortTable)
    expect(catalyst.report?.macTable).toEqual([{ macAddress: '68:99:cd:a5:9f:88', vlanID: null, portNumber: 11048 }]);
  });

  it("reports a Q-BRIDGE switch's ports with 64-bit counters, uplinks and LLDP neighbours", () => {
    expect(qbridge.error).toBeNull();
    const report = qbridge.report as Report;
    expect(report.serialNumber).toBe('LAB-SW6-0001');
    expect(report.uptimeSeconds).toBe(86_400);
    expect(report.macAddress).toBe('02:4e:47:00:00:00');
    const row = (p: Port) => [p.portNumber, p.label, p.isEnabled, p.isConnected, p.isUplink, p.portSpeedMbps];
    expect(report.interfaces.map(row)).toEqual([
      [10, 'Vl10: clients', true, true, false, 1000],
      [10101, 'Gi1/0/1: desk 1', true, true, false, 1000],
      [10102, 'Gi1/0/2', true, true, false, 1000],
      [10103, 'Gi1/0/3', true, false, false, 1000],
      [10104, 'Gi1/0/4', false, false, false, 1000],
      [10105, 'Te1/1/1', true, true, true, 10000],
      [10106, 'Te1/1/2', true, true, true, 10000],
    ]);
    // above 2^32: the 64-bit counters, not the low 32 bits ifTable has
    expect(report.interfaces.map((p) => p.counters)).toEqual([
      counters(5_000_000_000, 6_000_000_000, 7_000_000, 8_000_000),
      counters(2_000_000_014, 3_000_000_019, 2_857_142, 3_333_333),
      counters(6_000_000_042, 6_000_000_038, 8_571_428, 6_666_666),
      counters(0, 0, 0, 0),
      counters(0, 0, 0, 0),
      counters(30_000_000_210, 15_000_000_095, 42_857_143, 16_666_666, 5),
      counters(42_000_000_294, 18_000_000_114, 60_000_000, 20_000_000),
    ]);
    // lldpLocPortNum k is not the ifIndex: the local port's id names the interface
    expect(report.interfaces.filter((p) => p.lldpNeighbor !== null).map((p) => [p.portNumber, p.lldpNeighbor])).toEqual([
      [10101, { chassisID: '02:a9:00:00:00:01', portID: '02:a9:00:00:00:01', portDescription: 'eth0', systemName: 'ap-1' }],
      [10105, { chassisID: '02:4e:47:ff:00:01', portID: 'Te1/0/5', portDescription: 'to lab-switch-6', systemName: 'core-1' }],
      [10106, { chassisID: '02:4e:47:ff:00:02', portID: 'Te1/0/6', portDescription: 'to lab-switch-6', systemName: 'core-2' }],
    ]);
  });

  it("reports a Q-BRIDGE switch's learned forwarding entries with their VLANs, and its ARP clients", () => {
    const report = qbridge.report as Report;
    // FDB 5 is VLAN 30 (dot1qVlanCurrentTable), FDB 10 VLAN 10; the switch's own entry (self) and one on a bridge
    // port without an interface are left out
    expect(report.macTable).toEqual([
      { macAddress: '02:c1:00:00:00:02', vlanID: 30, portNumber: 10102 },
      { macAddress: '02:4e:47:ff:ff:01', vlanID: 10, portNumber: 10106 },
      { macAddress: '02:c1:00:00:00:01', vlanID: 10, portNumber: 10101 },
    ]);
    // ipNetToPhysicalTable on Vlan10; its invalid entry (10.10.0.250) left out. 02:c1:00:00:00:02 was learned on
    // Gi1/0/2, an access port: the client is there, in the VLAN of its entry (it was on Vl10, where ARP has it, before);
    // 02:c1:00:00:00:01 was learned on Gi1/0/1, whose LLDP neighbour is an access point: it stays on Vl10
    expect(report.clients.map((c) => [c.macAddress, c.ip, c.portNumber, c.vlanID])).toEqual([
      ['02:c1:00:00:00:01', '10.10.0.11', 10, undefined],
      ['02:c1:00:00:00:02', '10.10.0.12', 10102, 30],
    ]);
  });
});
