import { describe, expect, it } from 'vitest';
import type { DevicePoll, PolledInterface } from './collector.mibs.js';
import { pollChassisSerial, pollDevice, vlanOfFdb } from './collector.mibs.js';
import { buildReport, serialOfDevice } from './collector.report.js';
import type { SnmpClient, SnmpObject, SnmpValue } from './snmp.client.js';

const port = (ifIndex: number, rxBytes: bigint, wide: boolean, extra: Partial<PolledInterface> = {}): PolledInterface => ({
  ifIndex,
  name: `eth${ifIndex}`,
  alias: null,
  type: 6,
  isEnabled: true,
  isConnected: true,
  speedMbps: 1000,
  macAddress: `02:00:00:00:00:0${ifIndex}`,
  counters: { rxBytes, txBytes: 0n, rxPackets: 0n, txPackets: 0n, rxErrors: 0n, txErrors: 0n, wide },
  ...extra,
});
const poll = (uptimeSeconds: number, interfaces: PolledInterface[], neighbours: DevicePoll['neighbours'] = [], forwarding: DevicePoll['forwarding'] = null): DevicePoll => ({
  sysName: 'sw', sysDescr: null, sysObjectID: null, uptimeSeconds, interfaces, neighbours, forwarding, stpStates: new Map(),
  lldpNeighbours: [], resources: { cpuPercent: null, memoryUsedBytes: null, memoryTotalBytes: null },
});

/** An agent that answers from a fixed list of objects, as a recorded walk would (OIDs in order). */
function recordedAgent(objects: readonly SnmpObject[]): SnmpClient {
  return {
    async get(oids) {
      return oids.map((oid) => objects.find((o) => o.oid === oid)?.value ?? null);
    },
    async walk(oid) {
      return objects.filter((o) => o.oid.startsWith(`${oid}.`));
    },
    async walkColumns(oids) {
      return oids.map((oid) => objects.filter((o) => o.oid.startsWith(`${oid}.`)));
    },
    close() {},
  };
}
const cell = (oid: string, value: SnmpValue): SnmpObject => ({ oid, value });
const macIndex = (mac: string) => mac.split(':').map((h) => parseInt(h, 16)).join('.');
const macBytes = (mac: string) => Buffer.from(mac.split(':').map((h) => parseInt(h, 16)));
/** ifTable rows of ifIndex 1 (lo), 5 and 7 (bridge ports), 9 (another). */
const IF_ROWS = [1, 5, 7, 9].flatMap((i) => [
  cell(`1.3.6.1.2.1.2.2.1.2.${i}`, Buffer.from(i === 1 ? 'lo' : `eth${i}`)),
  cell(`1.3.6.1.2.1.2.2.1.3.${i}`, i === 1 ? 24 : 6),
  cell(`1.3.6.1.2.1.2.2.1.7.${i}`, 1),
  cell(`1.3.6.1.2.1.2.2.1.8.${i}`, 1),
]);
/** dot1dBasePortTable: bridge port 1 is ifIndex 5, 2 is ifIndex 7, 3 has no interface. */
const BASE_PORTS = [cell('1.3.6.1.2.1.17.1.4.1.2.1', 5), cell('1.3.6.1.2.1.17.1.4.1.2.2', 7), cell('1.3.6.1.2.1.17.1.4.1.2.3', 0)];
const dot1d = (mac: string, port: number, status: number) => [
  cell(`1.3.6.1.2.1.17.4.3.1.1.${macIndex(mac)}`, macBytes(mac)),
  cell(`1.3.6.1.2.1.17.4.3.1.2.${macIndex(mac)}`, port),
  cell(`1.3.6.1.2.1.17.4.3.1.3.${macIndex(mac)}`, status),
];
const dot1q = (fdbId: number, mac: string, port: number, status: number) => [
  cell(`1.3.6.1.2.1.17.7.1.2.2.1.2.${fdbId}.${macIndex(mac)}`, port),
  cell(`1.3.6.1.2.1.17.7.1.2.2.1.3.${fdbId}.${macIndex(mac)}`, status),
];
const device = { serialNumber: 'M1A3-SW00-0001', uplinks: ['eth1'] };
const at = new Date('2026-11-27T10:00:00Z');
const rxOf = (report: Record<string, unknown>, portNumber: number) =>
  ((report.interfaces as { portNumber: number; counters: { rxBytes: number } }[]).find((p) => p.portNumber === portNumber))?.counters.rxBytes;

describe('buildReport', () => {
  it('samples each uplink at the poll: throughput from its byte counters since the last poll, and what its probes measured', () => {
    const later = new Date(at.getTime() + 60_000);
    const bytes = (rxBytes: bigint, txBytes: bigint) => ({ counters: { rxBytes, txBytes, rxPackets: 0n, txPackets: 0n, rxErrors: 0n, txErrors: 0n, wide: true } });
    const first = buildReport(device, poll(100, [port(1, 1_000n, true), port(2, 5n, true)]), undefined, at);
    // the first poll has no earlier reading and no probe: no sample
    expect(first.report.uplinkSamples).toBeUndefined();
    const probes = new Map([['eth1', { latencyMs: 12.5, jitterMs: 1.25, lossPercent: 20 }]]);
    const second = buildReport(device, poll(160, [port(1, 0n, true, bytes(751_000n, 30_000n)), port(2, 9_000n, true)]), first.memory, later, probes);
    // only eth1 is an uplink: 750,000 bytes in and 30,000 out over 60 s
    expect(second.report.uplinkSamples).toEqual([
      { portNumber: 1, observedAt: later.toISOString(), latencyMs: 12.5, jitterMs: 1.25, lossPercent: 20, rxBitsPerSecond: 100_000, txBitsPerSecond: 4_000 },
    ]);
    // after a reboot the counters start again: no throughput, the probes still count
    const rebooted = buildReport(device, poll(5, [port(1, 10n, true)]), second.memory, new Date(later.getTime() + 60_000), probes);
    expect(rebooted.report.uplinkSamples).toEqual([
      { portNumber: 1, observedAt: new Date(later.getTime() + 60_000).toISOString(), latencyMs: 12.5, jitterMs: 1.25, lossPercent: 20, rxBitsPerSecond: null, txBitsPerSecond: null },
    ]);
  });

  it('unwraps 32-bit counters across polls, leaves 64-bit ones as read, and starts again after a reboot', () => {
    const first = buildReport(device, poll(100, [port(1, 4_294_967_000n, false), port(2, 5n, true)]), undefined, at);
    const second = buildReport(device, poll(160, [port(1, 704n, false), port(2, 9n, true)]), first.memory, at);
    expect(rxOf(second.report, 1)).toBe(4_294_967_296 + 704);
    expect(rxOf(second.report, 2)).toBe(9);
    const third = buildReport(device, poll(220, [port(1, 1_000n, false)]), second.memory, at);
    expect(rxOf(third.report, 1)).toBe(4_294_967_296 + 1_000);
    expect(third.report.events).toBeUndefined();

    const rebooted = buildReport(device, poll(30, [port(1, 50n, false)]), third.memory, at);
    expect(rxOf(rebooted.report, 1)).toBe(50);
    expect(rebooted.report.events).toEqual([
      { type: 'DEVICE_BOOT', observedAt: at.toISOString(), details: { source: 'snmp', uptimeSeconds: 30, previousUptimeSeconds: 220 } },
    ]);
  });

  it('reports ports by ifIndex without the loopback, uplinks by name, and wired clients once per MAC, IPv4 first, never the device itself', () => {
    const { report } = buildReport(
      device,
      poll(10, [port(1, 0n, true), port(2, 0n, true, { type: 24, name: 'lo' }), port(70_000, 0n, true)], [
        { ifIndex: 1, ip: 'fe80::1', macAddress: '0a:00:00:00:00:01' },
        { ifIndex: 1, ip: '198.19.0.9', macAddress: '0a:00:00:00:00:01' },
        { ifIndex: 9, ip: '198.19.0.10', macAddress: '0a:00:00:00:00:02' },
        { ifIndex: 1, ip: '198.19.0.1', macAddress: '02:00:00:00:00:01' },
      ]),
      undefined,
      at,
    );
    expect((report.interfaces as { portNumber: number; isUplink: boolean; isUplinkActive?: boolean }[]).map((p) => [p.portNumber, p.isUplink, p.isUplinkActive])).toEqual([[1, true, true]]);
    expect(report.clients).toEqual([
      { macAddress: '0a:00:00:00:00:01', ip: '198.19.0.9', hostname: null, isWireless: false, portNumber: 1 },
      { macAddress: '0a:00:00:00:00:02', ip: '198.19.0.10', hostname: null, isWireless: false, portNumber: null },
    ]);
  });

  it("reads a bridge's learned dot1dTpFdbTable entries into macTable, bridge ports mapped to ifIndex, with no VLAN", async () => {
    const agent = recordedAgent([
      ...IF_ROWS,
      ...BASE_PORTS,
      ...dot1d('0a:00:00:00:00:01', 1, 3),
      ...dot1d('0a:00:00:00:00:02', 2, 3),
      // the bridge's own address (self), a static one (mgmt), one on a port without an interface, one on no port
      ...dot1d('02:00:00:00:00:05', 1, 4),
      ...dot1d('0a:00:00:00:00:03', 2, 5),
      ...dot1d('0a:00:00:00:00:04', 3, 3),
      ...dot1d('0a:00:00:00:00:06', 0, 3),
    ]);
    const polled = await pollDevice(agent);
    expect(polled.forwarding).toEqual([
      { macAddress: '0a:00:00:00:00:01', vlanID: null, ifIndex: 5 },
      { macAddress: '0a:00:00:00:00:02', vlanID: null, ifIndex: 7 },
    ]);
    expect(buildReport(device, polled, undefined, at).report.macTable).toEqual([
      { macAddress: '0a:00:00:00:00:01', vlanID: null, portNumber: 5 },
      { macAddress: '0a:00:00:00:00:02', vlanID: null, portNumber: 7 },
    ]);
  });

  it("reads each bridge port's dot1dStpPortState onto the port of its ifIndex; other interfaces have none", async () => {
    const agent = recordedAgent([
      ...IF_ROWS,
      ...BASE_PORTS,
      // bridge port 1 (ifIndex 5) blocking, 2 (ifIndex 7) forwarding, 3 (no interface) broken; a value outside the MIB's
      cell('1.3.6.1.2.1.17.2.15.1.3.1', 2),
      cell('1.3.6.1.2.1.17.2.15.1.3.2', 5),
      cell('1.3.6.1.2.1.17.2.15.1.3.3', 6),
      cell('1.3.6.1.2.1.17.2.15.1.3.4', 7),
    ]);
    const polled = await pollDevice(agent);
    expect([...polled.stpStates]).toEqual([
      [5, 'BLOCKING'],
      [7, 'FORWARDING'],
    ]);
    const ports = buildReport(device, polled, undefined, at).report.interfaces ?? [];
    expect(ports.map((p) => [p.portNumber, p.stpState])).toEqual([
      [5, 'BLOCKING'],
      [7, 'FORWARDING'],
      [9, undefined],
    ]);
    // a bridge without dot1dStpPortTable (no STP) and a device that is no bridge: no state
    expect((await pollDevice(recordedAgent([...IF_ROWS, ...BASE_PORTS]))).stpStates.size).toBe(0);
    expect((await pollDevice(recordedAgent(IF_ROWS))).stpStates.size).toBe(0);
  });

  it('prefers Q-BRIDGE-MIB where present: the VLAN of each FDB id from dot1qVlanCurrentTable, else the FDB id itself', async () => {
    const agent = recordedAgent([
      ...IF_ROWS,
      ...BASE_PORTS,
      // dot1qVlanCurrentTable (time mark 0): VLAN 10 learns in FDB 1, VLANs 30 and 20 share FDB 2
      cell('1.3.6.1.2.1.17.7.1.4.2.1.3.0.10', 1),
      cell('1.3.6.1.2.1.17.7.1.4.2.1.3.0.20', 2),
      cell('1.3.6.1.2.1.17.7.1.4.2.1.3.0.30', 2),
      ...dot1q(1, '0a:00:00:00:00:01', 1, 3),
      ...dot1q(1, '0a:00:00:00:00:02', 2, 5),
      ...dot1q(2, '0a:00:00:00:00:01', 2, 3),
      ...dot1q(40, '0a:00:00:00:00:03', 2, 3),
      ...dot1q(5000, '0a:00:00:00:00:04', 1, 3),
      // dot1dTpFdbTable is not read when Q-BRIDGE has entries
      ...dot1d('0a:00:00:00:00:09', 1, 3),
    ]);
    const polled = await pollDevice(agent);
    expect(buildReport(device, polled, undefined, at).report.macTable).toEqual([
      { macAddress: '0a:00:00:00:00:01', vlanID: 10, portNumber: 5 },
      { macAddress: '0a:00:00:00:00:01', vlanID: 20, portNumber: 7 },
      { macAddress: '0a:00:00:00:00:03', vlanID: 40, portNumber: 7 },
      { macAddress: '0a:00:00:00:00:04', vlanID: null, portNumber: 5 },
    ]);
    expect(vlanOfFdb(7, new Map())).toBe(7);
    expect(vlanOfFdb(0, new Map())).toBeNull();
  });

  it('sends no macTable for a device that is no bridge, and an empty one for a bridge that learned nothing', async () => {
    const router = await pollDevice(recordedAgent(IF_ROWS));
    expect(router.forwarding).toBeNull();
    expect(buildReport(device, router, undefined, at).report).not.toHaveProperty('macTable');
    const idle = await pollDevice(recordedAgent([...IF_ROWS, ...BASE_PORTS]));
    expect(buildReport(device, idle, undefined, at).report.macTable).toEqual([]);
    // once per MAC and VLAN, on reported ports only (not the loopback)
    const report = buildReport(device, poll(10, [port(5, 0n, true)], [], [
      { macAddress: '0a:00:00:00:00:01', vlanID: 10, ifIndex: 5 },
      { macAddress: '0a:00:00:00:00:01', vlanID: 10, ifIndex: 5 },
      { macAddress: '0a:00:00:00:00:02', vlanID: 10, ifIndex: 1 },
    ]), undefined, at).report;
    expect(report.macTable).toEqual([{ macAddress: '0a:00:00:00:00:01', vlanID: 10, portNumber: 5 }]);
    // at most what a report may hold: the first 8,192 in table order
    const large = Array.from({ length: 8200 }, (_, i) => ({ macAddress: `0a:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`, vlanID: 10, ifIndex: 5 }));
    const capped = buildReport(device, poll(10, [port(5, 0n, true)], [], large), undefined, at).report.macTable as { macAddress: string }[];
    expect(capped.map((e) => e.macAddress)).toEqual(large.slice(0, 8192).map((e) => e.macAddress));
  });

  it('puts a client the bridge learned on an access port on that port, in its VLAN; on an uplink or an LLDP neighbour\'s port it stays where ARP has it', () => {
    const vlan10 = port(10, 0n, true, { name: 'vlan10', type: 136 });
    const neighbour = { ifIndex: 3, chassisID: '02:a9:00:00:00:01', portID: null, portDescription: null, systemName: 'ap-1' };
    const polled: DevicePoll = {
      ...poll(10, [port(1, 0n, true), port(2, 0n, true), port(3, 0n, true), vlan10], [
        { ifIndex: 10, ip: '198.19.0.21', macAddress: '0a:00:00:00:00:01' },
        { ifIndex: 10, ip: '198.19.0.22', macAddress: '0a:00:00:00:00:02' },
        { ifIndex: 10, ip: '198.19.0.23', macAddress: '0a:00:00:00:00:03' },
        { ifIndex: 10, ip: '198.19.0.24', macAddress: '0a:00:00:00:00:04' },
      ], [
        // eth2 is an access port; eth1 the uplink; eth3 has an access point as its LLDP neighbour
        { macAddress: '0a:00:00:00:00:01', vlanID: 10, ifIndex: 2 },
        { macAddress: '0a:00:00:00:00:01', vlanID: 20, ifIndex: 2 },
        { macAddress: '0a:00:00:00:00:02', vlanID: 10, ifIndex: 1 },
        { macAddress: '0a:00:00:00:00:03', vlanID: 10, ifIndex: 3 },
        { macAddress: '0a:00:00:00:00:05', vlanID: 20, ifIndex: 2 },
        { macAddress: '02:00:00:00:00:01', vlanID: 10, ifIndex: 2 },
      ]),
      lldpNeighbours: [neighbour],
    };
    const client = (macAddress: string, ip: string | null, portNumber: number) => ({ macAddress, ip, hostname: null, isWireless: false, portNumber });
    expect(buildReport(device, polled, undefined, at).report.clients).toEqual([
      { ...client('0a:00:00:00:00:01', '198.19.0.21', 2), vlanID: 10 },
      client('0a:00:00:00:00:02', '198.19.0.22', 10),
      client('0a:00:00:00:00:03', '198.19.0.23', 10),
      client('0a:00:00:00:00:04', '198.19.0.24', 10),
      // learned on an access port, not in the ARP table: a client without an address
      { ...client('0a:00:00:00:00:05', null, 2), vlanID: 20 },
    ]);
  });

  it("reads LLDP-MIB's remote table onto the ports, local ports mapped to ifIndex by name, else by number; ids decoded by subtype", async () => {
    const rem = (localPort: number, remIndex: number, columns: Record<number, SnmpValue>) =>
      Object.entries(columns).map(([column, value]) => cell(`1.0.8802.1.1.2.1.4.1.1.${column}.0.${localPort}.${remIndex}`, value));
    const agent = recordedAgent([
      ...IF_ROWS,
      // local port 20 is eth7 by its description; local port 5 has no row: it is ifIndex 5
      cell('1.0.8802.1.1.2.1.3.7.1.2.20', 5),
      cell('1.0.8802.1.1.2.1.3.7.1.3.20', Buffer.from('Gi0/7')),
      cell('1.0.8802.1.1.2.1.3.7.1.4.20', Buffer.from('eth7')),
      // ifIndex 5: a MAC chassis id and port id, and a second neighbour on the same port (left out)
      ...rem(5, 1, { 4: 4, 5: macBytes('0A:00:00:00:00:01'), 6: 3, 7: macBytes('0a:00:00:00:00:0f'), 8: Buffer.from('eth0'), 9: Buffer.from('ap-1') }),
      ...rem(5, 2, { 4: 7, 5: Buffer.from('other'), 6: 5, 7: Buffer.from('x') }),
      // local port 20 = ifIndex 7: a network-address chassis id, an interface-name port id, binary local id
      ...rem(20, 1, { 4: 5, 5: Buffer.from([1, 10, 0, 0, 9]), 6: 7, 7: Buffer.from([0, 1, 255]) }),
      // a local port that is no interface
      ...rem(99, 1, { 4: 7, 5: Buffer.from('nowhere') }),
    ]);
    const polled = await pollDevice(agent);
    expect(polled.lldpNeighbours).toEqual([
      { ifIndex: 5, chassisID: '0a:00:00:00:00:01', portID: '0a:00:00:00:00:0f', portDescription: 'eth0', systemName: 'ap-1' },
      { ifIndex: 7, chassisID: '10.0.0.9', portID: '00:01:ff', portDescription: null, systemName: null },
    ]);
    const ports = buildReport(device, polled, undefined, at).report.interfaces as { portNumber: number; lldpNeighbor: unknown }[];
    expect(ports.map((p) => [p.portNumber, p.lldpNeighbor])).toEqual([
      [5, { chassisID: '0a:00:00:00:00:01', portID: '0a:00:00:00:00:0f', portDescription: 'eth0', systemName: 'ap-1' }],
      [7, { chassisID: '10.0.0.9', portID: '00:01:ff', portDescription: null, systemName: null }],
      [9, null],
    ]);
  });

  it('reports the processors\' average load and the RAM entry of hrStorageTable in bytes, and null where the agent has none', async () => {
    const storage = (index: number, type: string, units: number, size: number, used: number) => [
      cell(`1.3.6.1.2.1.25.2.3.1.2.${index}`, type),
      cell(`1.3.6.1.2.1.25.2.3.1.4.${index}`, units),
      cell(`1.3.6.1.2.1.25.2.3.1.5.${index}`, size),
      cell(`1.3.6.1.2.1.25.2.3.1.6.${index}`, used),
    ];
    const polled = await pollDevice(
      recordedAgent([
        ...IF_ROWS,
        ...storage(3, '1.3.6.1.2.1.25.2.1.3', 1024, 999, 1),
        ...storage(1, '1.3.6.1.2.1.25.2.1.2', 1024, 4_000_000, 1_000_000),
        cell('1.3.6.1.2.1.25.3.3.1.2.196608', 10),
        cell('1.3.6.1.2.1.25.3.3.1.2.196609', 15),
        cell('1.3.6.1.2.1.25.3.3.1.2.196610', 16),
      ]),
    );
    const { report } = buildReport(device, polled, undefined, at);
    expect([report.cpuPercent, report.memoryUsedBytes, report.memoryTotalBytes]).toEqual([13.7, 1_024_000_000, 4_096_000_000]);
    const bare = buildReport(device, await pollDevice(recordedAgent(IF_ROWS)), undefined, at).report;
    expect([bare.cpuPercent, bare.memoryUsedBytes, bare.memoryTotalBytes]).toEqual([null, null, null]);
  });

  it('takes a device without a configured serial number by its ENTITY-MIB chassis serial, else its first MAC address', async () => {
    const entity = (index: number, physicalClass: number, serial: string) => [
      cell(`1.3.6.1.2.1.47.1.1.1.1.5.${index}`, physicalClass),
      cell(`1.3.6.1.2.1.47.1.1.1.1.11.${index}`, Buffer.from(serial)),
    ];
    // a stack (11) without a serial, a power supply (6) with one, then the chassis (3)
    const stack = recordedAgent([...entity(1, 11, ''), ...entity(2, 6, 'PSU-1'), ...entity(3001, 3, 'CAT0952N20R')].sort((a, b) => (a.oid < b.oid ? -1 : 1)));
    expect(await pollChassisSerial(stack)).toBe('CAT0952N20R');
    expect(await pollChassisSerial(recordedAgent(entity(2, 6, 'PSU-1')))).toBeNull();
    expect(await pollChassisSerial(recordedAgent(IF_ROWS))).toBeNull();

    const interfaces = [port(2, 0n, true, { type: 24, macAddress: null }), port(3, 0n, true, { macAddress: null }), port(5, 0n, true, { macAddress: '0a:1b:2c:3d:4e:5f' })];
    expect(serialOfDevice('CAT0952N20R', poll(1, interfaces))).toBe('CAT0952N20R');
    // a serial netgraph does not take (a space), or none: the first reported port's MAC address
    expect(serialOfDevice('FOC 1234', poll(1, interfaces))).toBe('0A1B2C3D4E5F');
    expect(serialOfDevice(null, poll(1, interfaces))).toBe('0A1B2C3D4E5F');
    expect(serialOfDevice(null, poll(1, interfaces.slice(0, 2)))).toBeNull();
  });
});
