import { randomUUID } from 'node:crypto';
import { isSerialNumber } from '../kernel/rules.js';
import { MAX_CLIENTS, MAX_MAC_TABLE_ENTRIES } from '../ingest/report.limits.js';
import type { ClientInput, CountersInput, MacTableEntryInput, PortInput, Report, UplinkSampleInput } from '../ingest/report.protocol.js';
import type { PortType, StpState } from '../ingest/report.limits.js';
import type { ProbeResult } from './collector.probes.js';
import type { DevicePoll, InterfaceCounters, PolledFdbEntry, PolledInterface, PolledLldpNeighbour } from './collector.mibs.js';

/**
 * What the collector knows of a device between polls: its uptime, for
 * reboots, its 32-bit counters, to unwrap them, and its uplinks' byte
 * counters with the time they were read, for their throughput.
 */
export interface DeviceMemory {
  readonly uptimeSeconds: number | null;
  /** Per ifIndex: the last raw 32-bit readings and how many times each has wrapped, in order rxBytes, txBytes, rxPackets, txPackets. */
  readonly narrowCounters: ReadonlyMap<number, { readonly raw: readonly bigint[]; readonly wraps: readonly bigint[] }>;
  /** Per uplink ifIndex: its byte counters as reported, and when (ms since the epoch). */
  readonly uplinkBytes: ReadonlyMap<number, { readonly rxBytes: number; readonly txBytes: number; readonly atMs: number }>;
}

/** How a polled device reports: the hardware it reports as, and which of its interfaces are uplinks. */
export interface ReportingDevice {
  readonly serialNumber: string;
  /** ifName (or ifDescr) of the uplink interfaces. */
  readonly uplinks: readonly string[];
}

const IF_TYPE_SOFTWARE_LOOPBACK = 24;
const PORT_TYPES: ReadonlyMap<number, PortType> = new Map([
  [71, 'WIRELESS'], // ieee80211
  [243, 'CELLULAR'], // wwanPP
  [244, 'CELLULAR'], // wwanPP2
]);
const MAX_PORT_NUMBER = 65_535;
const WRAP_32 = 2n ** 32n;
const MAX_COUNTER = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The report one poll makes, and what to remember for the next: ports from
 * the interfaces (ifIndex as the port number), wired clients from the IP
 * neighbours, a bridge's MAC table from its forwarding database, each
 * port's LLDP neighbour and spanning-tree state, CPU and memory,
 * `DEVICE_BOOT` when the uptime went down, 32-bit counters unwrapped across
 * polls (reset by a reboot).
 */
export function buildReport(
  device: ReportingDevice,
  poll: DevicePoll,
  previous: DeviceMemory | undefined,
  observedAt: Date,
  probes: ReadonlyMap<string, ProbeResult> = new Map(),
): { report: Report; memory: DeviceMemory } {
  const rebooted = previous?.uptimeSeconds != null && poll.uptimeSeconds !== null && poll.uptimeSeconds < previous.uptimeSeconds;
  const narrowCounters = new Map<number, { raw: bigint[]; wraps: bigint[] }>();
  const ports = reportedPorts(poll);
  const lldp = new Map(poll.lldpNeighbours.map((n) => [n.ifIndex, n]));
  const interfaces = ports.map((i) => {
    const counters = i.counters === null ? null : unwrap(i.ifIndex, i.counters, rebooted ? undefined : previous, narrowCounters);
    return portOf(i, device, counters, lldp.get(i.ifIndex), poll.stpStates.get(i.ifIndex));
  });
  const { samples: uplinkSamples, uplinkBytes } = uplinkSamplesOf(ports, interfaces, rebooted ? undefined : previous, observedAt, probes);
  const report: Report = {
    reportId: randomUUID(),
    serialNumber: device.serialNumber,
    observedAt: observedAt.toISOString(),
    uptimeSeconds: poll.uptimeSeconds,
    macAddress: ports.find((i) => i.macAddress !== null)?.macAddress ?? null,
    ...poll.resources,
    interfaces,
    clients: clientsOf(poll, new Set(ports.map((p) => p.ifIndex)), accessPortsOf(ports, device, lldp)),
    ...(poll.forwarding === null ? {} : { macTable: macTableOf(poll.forwarding, new Set(ports.map((p) => p.ifIndex))) }),
    ...(uplinkSamples.length === 0 ? {} : { uplinkSamples }),
    ...(rebooted
      ? { events: [{ type: 'DEVICE_BOOT', observedAt: observedAt.toISOString(), details: { source: 'snmp', uptimeSeconds: poll.uptimeSeconds, previousUptimeSeconds: previous?.uptimeSeconds } }] }
      : {}),
  };
  return { report, memory: { uptimeSeconds: poll.uptimeSeconds, narrowCounters, uplinkBytes } };
}

/**
 * The serial number a device without a configured one reports as
 * (docs/collector.md): its chassis serial from ENTITY-MIB when it is one
 * netgraph takes, else the MAC address of the report's first port that has
 * one, as 12 uppercase hex digits (0016C7026EC0); null when it has neither.
 */
export function serialOfDevice(chassisSerial: string | null, poll: DevicePoll): string | null {
  if (chassisSerial !== null && isSerialNumber(chassisSerial)) return chassisSerial;
  const mac = reportedPorts(poll).find((i) => i.macAddress !== null)?.macAddress;
  return mac == null ? null : mac.replaceAll(':', '').toUpperCase();
}

/** The interfaces a report has as ports: not software loopbacks, and an ifIndex that fits a port number. */
function reportedPorts(poll: DevicePoll): PolledInterface[] {
  return poll.interfaces.filter((i) => i.type !== IF_TYPE_SOFTWARE_LOOPBACK && i.ifIndex <= MAX_PORT_NUMBER);
}

/**
 * One sample per uplink port at the poll's time: the latency, jitter and
 * loss its probes measured (by the uplink's name), and its throughput in each
 * direction from its byte counters since the previous poll (bits over the
 * seconds between the two readings; none after a reboot, on the first poll,
 * or when a counter went down). An uplink with neither has no sample.
 */
function uplinkSamplesOf(
  ports: readonly PolledInterface[],
  interfaces: readonly PortInput[],
  previous: DeviceMemory | undefined,
  observedAt: Date,
  probes: ReadonlyMap<string, ProbeResult>,
): { samples: UplinkSampleInput[]; uplinkBytes: Map<number, { rxBytes: number; txBytes: number; atMs: number }> } {
  const samples: UplinkSampleInput[] = [];
  const uplinkBytes = new Map<number, { rxBytes: number; txBytes: number; atMs: number }>();
  const atMs = observedAt.getTime();
  interfaces.forEach((port, k) => {
    if (port.isUplink !== true) return;
    const probe = probes.get((ports[k] as PolledInterface).name);
    let rxBitsPerSecond: number | null = null;
    let txBitsPerSecond: number | null = null;
    if (port.counters != null) {
      const now = { rxBytes: port.counters.rxBytes, txBytes: port.counters.txBytes, atMs };
      uplinkBytes.set(port.portNumber, now);
      const before = previous?.uplinkBytes.get(port.portNumber);
      const seconds = before === undefined ? 0 : (atMs - before.atMs) / 1000;
      if (before !== undefined && seconds > 0 && now.rxBytes >= before.rxBytes && now.txBytes >= before.txBytes) {
        rxBitsPerSecond = ((now.rxBytes - before.rxBytes) * 8) / seconds;
        txBitsPerSecond = ((now.txBytes - before.txBytes) * 8) / seconds;
      }
    }
    if (probe === undefined && rxBitsPerSecond === null) return;
    samples.push({
      portNumber: port.portNumber,
      observedAt: observedAt.toISOString(),
      latencyMs: probe?.latencyMs ?? null,
      jitterMs: probe?.jitterMs ?? null,
      lossPercent: probe?.lossPercent ?? null,
      rxBitsPerSecond,
      txBitsPerSecond,
    });
  });
  return { samples, uplinkBytes };
}

function portOf(i: PolledInterface, device: ReportingDevice, counters: CountersInput | null, neighbour: PolledLldpNeighbour | undefined, stpState: StpState | undefined): PortInput {
  const isUplink = device.uplinks.includes(i.name);
  return {
    portNumber: i.ifIndex,
    label: (i.alias === null ? i.name : `${i.name}: ${i.alias}`).slice(0, 100),
    portType: PORT_TYPES.get(i.type) ?? null,
    isEnabled: i.isEnabled,
    isConnected: i.isConnected,
    isUplink,
    ...(isUplink ? { isUplinkActive: i.isConnected } : {}),
    portSpeedMbps: i.speedMbps,
    counters,
    lldpNeighbor: neighbour === undefined ? null : { chassisID: neighbour.chassisID, portID: neighbour.portID, portDescription: neighbour.portDescription, systemName: neighbour.systemName },
    // a bridge's port in dot1dStpPortTable; other interfaces say nothing of spanning tree
    ...(stpState === undefined ? {} : { stpState }),
  };
}

/** The report's counters: 64-bit ones as read, 32-bit ones plus 2^32 for every wrap seen since the device booted. */
function unwrap(
  ifIndex: number,
  counters: InterfaceCounters,
  previous: DeviceMemory | undefined,
  memory: Map<number, { raw: bigint[]; wraps: bigint[] }>,
): CountersInput | null {
  const values = [counters.rxBytes, counters.txBytes, counters.rxPackets, counters.txPackets];
  let total = values;
  if (!counters.wide) {
    const before = previous?.narrowCounters.get(ifIndex);
    const wraps = values.map((raw, k) => {
      const wrapsBefore = before?.wraps[k] ?? 0n;
      const rawBefore = before?.raw[k];
      return rawBefore !== undefined && raw < rawBefore ? wrapsBefore + 1n : wrapsBefore;
    });
    memory.set(ifIndex, { raw: values, wraps });
    total = values.map((raw, k) => raw + (wraps[k] ?? 0n) * WRAP_32);
  }
  const all = [...total, counters.rxErrors, counters.txErrors];
  // a count past 2^53 (9 PB) cannot be sent exactly as a JSON number
  if (all.some((v) => v > MAX_COUNTER)) return null;
  const [rxBytes, txBytes, rxPackets, txPackets, rxErrors, txErrors] = all.map(Number);
  return { rxBytes: rxBytes ?? 0, txBytes: txBytes ?? 0, rxPackets: rxPackets ?? 0, txPackets: txPackets ?? 0, rxErrors: rxErrors ?? 0, txErrors: txErrors ?? 0 };
}

/**
 * The ports a wired client can sit on: reported ports that are neither
 * uplinks nor an LLDP neighbour's (a MAC address learned there is behind
 * another switch or an access point).
 */
function accessPortsOf(ports: readonly PolledInterface[], device: ReportingDevice, lldp: ReadonlyMap<number, PolledLldpNeighbour>): Set<number> {
  return new Set(ports.filter((p) => !device.uplinks.includes(p.name) && !lldp.has(p.ifIndex)).map((p) => p.ifIndex));
}

/**
 * Wired clients (docs/collector.md), one per MAC address, never the device's
 * own interfaces: each MAC address a bridge learned on an access port, on
 * that port with the entry's VLAN (the first entry in table order); each
 * other IP neighbour on the interface that has it (a VLAN interface, where ARP
 * puts them) when that is a reported port. A client's IP address is its IP
 * neighbour's (IPv4 first), null when it has none. IP neighbours first, in
 * their order, then the bridge's other clients; at most the protocol's 5,000.
 */
function clientsOf(poll: DevicePoll, portNumbers: ReadonlySet<number>, accessPorts: ReadonlySet<number>): ClientInput[] {
  const own = new Set(poll.interfaces.map((i) => i.macAddress).filter((m) => m !== null));
  const learned = new Map<string, PolledFdbEntry>();
  for (const entry of poll.forwarding ?? []) {
    if (accessPorts.has(entry.ifIndex) && !learned.has(entry.macAddress)) learned.set(entry.macAddress, entry);
  }
  const byMac = new Map<string, ClientInput>();
  const add = (macAddress: string, ip: string | null, ifIndex: number | null) => {
    const entry = learned.get(macAddress);
    const client: ClientInput =
      entry === undefined
        ? { macAddress, ip, hostname: null, isWireless: false, portNumber: ifIndex !== null && portNumbers.has(ifIndex) ? ifIndex : null }
        : { macAddress, ip, hostname: null, isWireless: false, portNumber: entry.ifIndex, vlanID: entry.vlanID };
    byMac.set(macAddress, client);
  };
  for (const n of poll.neighbours) {
    if (own.has(n.macAddress)) continue;
    const known = byMac.get(n.macAddress)?.ip;
    if (known != null && (known.includes('.') || !n.ip.includes('.'))) continue;
    add(n.macAddress, n.ip, n.ifIndex);
  }
  for (const macAddress of learned.keys()) if (!own.has(macAddress) && !byMac.has(macAddress)) add(macAddress, null, null);
  return [...byMac.values()].slice(0, MAX_CLIENTS);
}

/**
 * A bridge's MAC table: its learned entries on reported ports (ifIndex as the
 * port number), once per MAC address and VLAN (the first in table order), at
 * most the protocol's 8,192, the first in table order.
 */
function macTableOf(forwarding: readonly PolledFdbEntry[], portNumbers: ReadonlySet<number>): MacTableEntryInput[] {
  const seen = new Set<string>();
  const table: MacTableEntryInput[] = [];
  for (const entry of forwarding) {
    const key = `${entry.macAddress}/${entry.vlanID ?? ''}`;
    if (!portNumbers.has(entry.ifIndex) || seen.has(key) || table.length === MAX_MAC_TABLE_ENTRIES) continue;
    seen.add(key);
    table.push({ macAddress: entry.macAddress, vlanID: entry.vlanID, portNumber: entry.ifIndex });
  }
  return table;
}
