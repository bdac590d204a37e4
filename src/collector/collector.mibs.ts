import { isVlanId } from '../kernel/rules.js';
import { STP_STATES } from '../ingest/report.limits.js';
import type { StpState } from '../ingest/report.limits.js';
import type { SnmpClient, SnmpObject, SnmpValue } from './snmp.client.js';

// The standard MIB objects one poll reads, and how their values are decoded.
// docs/collector.md maps each of them to the report field it feeds.

/** SNMPv2-MIB system group scalars. */
export const SYSTEM = {
  sysDescr: '1.3.6.1.2.1.1.1.0',
  sysObjectID: '1.3.6.1.2.1.1.2.0',
  sysUpTime: '1.3.6.1.2.1.1.3.0',
  sysName: '1.3.6.1.2.1.1.5.0',
} as const;

/** IF-MIB ifTable entry; the columns read. */
const IF_ENTRY = '1.3.6.1.2.1.2.2.1';
const IF = { descr: 2, type: 3, speed: 5, physAddress: 6, adminStatus: 7, operStatus: 8, inOctets: 10, inUcastPkts: 11, inErrors: 14, outOctets: 16, outUcastPkts: 17, outErrors: 20 };
/** IF-MIB ifXTable entry: names and 64-bit counters. */
const IFX_ENTRY = '1.3.6.1.2.1.31.1.1.1';
const IFX = { name: 1, hcInOctets: 6, hcInUcastPkts: 7, hcOutOctets: 10, hcOutUcastPkts: 11, highSpeed: 15, alias: 18 };
/** IP-MIB ipNetToPhysicalTable (index: ifIndex, address type, length, address) and the older ipNetToMediaTable (index: ifIndex, IPv4). */
const IP_NET_TO_PHYSICAL_ENTRY = '1.3.6.1.2.1.4.35.1';
const IP_NET_TO_MEDIA_ENTRY = '1.3.6.1.2.1.4.22.1';
/** ipNetToPhysicalType / ipNetToMediaType: invalid(2) entries are stale. */
const NEIGHBOUR_INVALID = 2;
/** BRIDGE-MIB dot1dBasePortTable (index: bridge port; column 2 dot1dBasePortIfIndex). */
const DOT1D_BASE_PORT_ENTRY = '1.3.6.1.2.1.17.1.4.1';
/** BRIDGE-MIB dot1dStpPortTable (index: bridge port; column 3 dot1dStpPortState: disabled(1) blocking(2) listening(3) learning(4) forwarding(5) broken(6)). */
const DOT1D_STP_PORT_ENTRY = '1.3.6.1.2.1.17.2.15.1';
/** BRIDGE-MIB dot1dTpFdbTable (index: MAC; columns 1 address, 2 bridge port, 3 status): a bridge without VLANs. */
const DOT1D_TP_FDB_ENTRY = '1.3.6.1.2.1.17.4.3.1';
/** Q-BRIDGE-MIB dot1qTpFdbTable (index: FDB id, MAC; columns 2 bridge port, 3 status). */
const DOT1Q_TP_FDB_ENTRY = '1.3.6.1.2.1.17.7.1.2.2.1';
/** Q-BRIDGE-MIB dot1qVlanCurrentTable (index: time mark, VLAN id; column 3 dot1qVlanFdbId). */
const DOT1Q_VLAN_CURRENT_ENTRY = '1.3.6.1.2.1.17.7.1.4.2.1';
/** dot1dTpFdbStatus / dot1qTpFdbStatus: learned(3); other(1), invalid(2), self(4) and mgmt(5) are not what the bridge learned. */
const FDB_LEARNED = 3;

/** LLDP-MIB lldpLocPortTable (index: lldpLocPortNum; columns 2 port id subtype, 3 port id, 4 port description). */
const LLDP_LOC_PORT_ENTRY = '1.0.8802.1.1.2.1.3.7.1';
/** LLDP-MIB lldpRemTable (index: time mark, lldpRemLocalPortNum, lldpRemIndex). */
const LLDP_REM_ENTRY = '1.0.8802.1.1.2.1.4.1.1';
const LLDP_REM = { chassisIdSubtype: 4, chassisId: 5, portIdSubtype: 6, portId: 7, portDesc: 8, sysName: 9 };
/** LldpChassisIdSubtype and LldpPortIdSubtype values of a MAC address and a network address (IANA family, then the address). */
const CHASSIS_SUBTYPE = { macAddress: 4, networkAddress: 5 };
const PORT_SUBTYPE = { macAddress: 3, networkAddress: 4, interfaceName: 5, local: 7 };
/** HOST-RESOURCES-MIB hrProcessorLoad (per processor, the last minute's load in percent). */
const HR_PROCESSOR_LOAD = '1.3.6.1.2.1.25.3.3.1.2';
/** HOST-RESOURCES-MIB hrStorageTable (columns 2 type, 4 allocation units, 5 size, 6 used) and its type of RAM. */
const HR_STORAGE_ENTRY = '1.3.6.1.2.1.25.2.3.1';
const HR_STORAGE_RAM = '1.3.6.1.2.1.25.2.1.2';
/** ENTITY-MIB entPhysicalTable's entPhysicalClass and entPhysicalSerialNum columns (index: entPhysicalIndex), and the class chassis(3). */
const ENT_PHYSICAL_CLASS = '1.3.6.1.2.1.47.1.1.1.1.5';
const ENT_PHYSICAL_SERIAL_NUM = '1.3.6.1.2.1.47.1.1.1.1.11';
const ENT_CLASS_CHASSIS = 3;
const NOT_TEXT = /[\u0000-\u001f\u007f\ufffd]/;

/** Cumulative counters of one interface; `wide` is true when they are IF-MIB's 64-bit counters. */
export interface InterfaceCounters {
  readonly rxBytes: bigint;
  readonly txBytes: bigint;
  readonly rxPackets: bigint;
  readonly txPackets: bigint;
  readonly rxErrors: bigint;
  readonly txErrors: bigint;
  readonly wide: boolean;
}

/** One row of ifTable joined with ifXTable. */
export interface PolledInterface {
  readonly ifIndex: number;
  readonly name: string;
  readonly alias: string | null;
  /** IANAifType. */
  readonly type: number;
  readonly isEnabled: boolean;
  readonly isConnected: boolean;
  readonly speedMbps: number | null;
  /** Lowercase colon-separated, or null when the interface has none. */
  readonly macAddress: string | null;
  readonly counters: InterfaceCounters | null;
}

/** An IP neighbour of the device (its ARP or NDP cache). */
export interface PolledNeighbour {
  readonly ifIndex: number;
  readonly ip: string;
  readonly macAddress: string;
}

/** A learned entry of the device's forwarding database: frames for `macAddress` in `vlanID` (null: no VLANs) leave by `ifIndex`. */
export interface PolledFdbEntry {
  readonly macAddress: string;
  readonly vlanID: number | null;
  readonly ifIndex: number;
}

/** The LLDP neighbour seen on the interface `ifIndex`, as its advertisement describes itself. */
export interface PolledLldpNeighbour {
  readonly ifIndex: number;
  readonly chassisID: string;
  readonly portID: string | null;
  readonly portDescription: string | null;
  readonly systemName: string | null;
}

/** CPU load (percent, the processors' average) and RAM (bytes), null where the agent has none. */
export interface PolledResources {
  readonly cpuPercent: number | null;
  readonly memoryUsedBytes: number | null;
  readonly memoryTotalBytes: number | null;
}

/** What one poll read from a device. */
export interface DevicePoll {
  readonly sysName: string | null;
  readonly sysDescr: string | null;
  readonly sysObjectID: string | null;
  /** sysUpTime in whole seconds. */
  readonly uptimeSeconds: number | null;
  readonly interfaces: readonly PolledInterface[];
  readonly neighbours: readonly PolledNeighbour[];
  /** The learned forwarding entries of a bridge, in table order; null when the device is no bridge (no dot1dBasePortTable). */
  readonly forwarding: readonly PolledFdbEntry[] | null;
  /** A bridge's ports' spanning-tree state (dot1dStpPortState) by ifIndex; empty when the agent has no dot1dStpPortTable. */
  readonly stpStates: ReadonlyMap<number, StpState>;
  /** LLDP-MIB's remote table, the first neighbour of each local port that maps to an interface. */
  readonly lldpNeighbours: readonly PolledLldpNeighbour[];
  readonly resources: PolledResources;
}

/** Reads the system group, interfaces, IP neighbours and (of a bridge) the forwarding database of one device. */
export async function pollDevice(client: SnmpClient): Promise<DevicePoll> {
  const [sysDescr, sysObjectID, sysUpTime, sysName] = await client.get(Object.values(SYSTEM));
  const [ifRows, ifxRows, physical, bridge, locPorts, remotes, resources] = await Promise.all([
    walkTable(client, IF_ENTRY, Object.values(IF)),
    walkTable(client, IFX_ENTRY, Object.values(IFX)),
    walkTable(client, IP_NET_TO_PHYSICAL_ENTRY, [4, 6]),
    pollBridge(client),
    walkTable(client, LLDP_LOC_PORT_ENTRY, [2, 3, 4]),
    walkTable(client, LLDP_REM_ENTRY, Object.values(LLDP_REM)),
    pollResources(client),
  ]);
  // ipNetToMediaTable only for agents that lack the newer table
  const neighbours = physical.size > 0 ? neighboursFromPhysical(physical) : neighboursFromMedia(await walkTable(client, IP_NET_TO_MEDIA_ENTRY, [2, 4]));
  const interfaces = [...ifRows.entries()].map(([index, columns]) => readInterface(Number(index), columns, ifxRows.get(index)));
  return {
    sysName: text(sysName),
    sysDescr: text(sysDescr),
    sysObjectID: typeof sysObjectID === 'string' ? sysObjectID : null,
    uptimeSeconds: typeof sysUpTime === 'number' ? Math.floor(sysUpTime / 100) : null,
    interfaces,
    neighbours,
    ...bridge,
    lldpNeighbours: decodeLldpNeighbours(remotes, lldpPortsToIfIndex(locPorts, interfaces)),
    resources,
  };
}

/**
 * The device's own serial number: ENTITY-MIB's entPhysicalSerialNum of the
 * first chassis (entPhysicalClass chassis(3), in table order) that has one;
 * null when the agent has no ENTITY-MIB or no chassis with a serial (a
 * stack's own entry has none, its members' chassis do).
 */
export async function pollChassisSerial(client: SnmpClient): Promise<string | null> {
  const [classes, serials] = await Promise.all([client.walk(ENT_PHYSICAL_CLASS), client.walk(ENT_PHYSICAL_SERIAL_NUM)]);
  const serialOf = new Map(serials.map((o) => [o.oid.slice(ENT_PHYSICAL_SERIAL_NUM.length + 1), text(o.value)]));
  for (const o of classes) {
    const serial = serialOf.get(o.oid.slice(ENT_PHYSICAL_CLASS.length + 1));
    if (integer(o.value) === ENT_CLASS_CHASSIS && serial != null) return serial;
  }
  return null;
}

/**
 * Which interface each LLDP local port is (lldpLocPortNum need not be the
 * ifIndex): the interface named as the port's description, or as its id
 * when that is an interface name (or a local name); else the interface
 * whose ifIndex is the port number, as on most agents (lldpd's among them).
 */
export function lldpPortsToIfIndex(locPorts: Table, interfaces: readonly PolledInterface[]): Map<number, number> {
  const byName = new Map(interfaces.map((i) => [i.name, i.ifIndex]));
  const ifIndexes = new Set(interfaces.map((i) => i.ifIndex));
  const map = new Map<number, number>();
  for (const [index, row] of locPorts) {
    const portNum = Number(index);
    const subtype = integer(row.get(2));
    const named = subtype === PORT_SUBTYPE.interfaceName || subtype === PORT_SUBTYPE.local ? text(row.get(3)) : null;
    const ifIndex = byName.get(text(row.get(4)) ?? '') ?? byName.get(named ?? '');
    if (ifIndex !== undefined) map.set(portNum, ifIndex);
  }
  for (const index of ifIndexes) if (!map.has(index) && ![...map.values()].includes(index)) map.set(index, index);
  return map;
}

/** lldpRemTable's rows, the first (in table order) of each local port that maps to an interface. */
export function decodeLldpNeighbours(rows: Table, ifIndexOf: ReadonlyMap<number, number>): PolledLldpNeighbour[] {
  const byIfIndex = new Map<number, PolledLldpNeighbour>();
  for (const [index, row] of rows) {
    const ifIndex = ifIndexOf.get(Number(index.split('.')[1]));
    const chassisID = lldpId(row.get(LLDP_REM.chassisIdSubtype), row.get(LLDP_REM.chassisId), CHASSIS_SUBTYPE);
    if (ifIndex === undefined || chassisID === null || byIfIndex.has(ifIndex)) continue;
    byIfIndex.set(ifIndex, {
      ifIndex,
      chassisID,
      portID: lldpId(row.get(LLDP_REM.portIdSubtype), row.get(LLDP_REM.portId), PORT_SUBTYPE),
      portDescription: text(row.get(LLDP_REM.portDesc)),
      systemName: text(row.get(LLDP_REM.sysName)),
    });
  }
  return [...byIfIndex.values()];
}

/**
 * An LLDP chassis or port id as text: a MAC address as aa:bb:cc:dd:ee:ff, a
 * network address (IANA family 1 or 2) as its IP address, anything else as
 * its text when it is printable, else as hex; at most 255 characters.
 */
function lldpId(subtype: SnmpValue | undefined, value: SnmpValue | undefined, kinds: { macAddress: number; networkAddress: number }): string | null {
  const kind = integer(subtype);
  if (kind === kinds.macAddress) {
    const mac = macAddress(value);
    if (mac !== null) return mac;
  }
  if (kind === kinds.networkAddress && Buffer.isBuffer(value)) {
    const [family, ...address] = [...value];
    if (family === 1 && address.length === 4) return address.join('.');
    if (family === 2 && address.length === 16) return ipv6(address);
  }
  if (!Buffer.isBuffer(value)) return text(value)?.slice(0, 255) ?? null;
  const decoded = text(value);
  // control characters or invalid UTF-8: binary, not text
  if (decoded !== null && !NOT_TEXT.test(decoded)) return decoded.slice(0, 255);
  return value.length === 0 ? null : value.toString('hex').replace(/(..)(?!$)/g, '$1:').slice(0, 255);
}

/** HOST-RESOURCES-MIB: the processors' average load, and the first RAM entry of hrStorageTable. */
async function pollResources(client: SnmpClient): Promise<PolledResources> {
  const [loads, storage] = await Promise.all([client.walk(HR_PROCESSOR_LOAD), walkTable(client, HR_STORAGE_ENTRY, [2, 4, 5, 6])]);
  return decodeResources(loads.map((o) => integer(o.value)).filter((v) => v !== null), storage);
}

/** The average of `loads` (one decimal), and RAM in bytes (allocation units times size and used). */
export function decodeResources(loads: readonly number[], storage: Table): PolledResources {
  const cpuPercent = loads.length === 0 ? null : Math.round((loads.reduce((a, b) => a + b, 0) / loads.length) * 10) / 10;
  const ram = [...storage.values()].find((row) => row.get(2) === HR_STORAGE_RAM);
  const units = integer(ram?.get(4));
  const size = integer(ram?.get(5));
  const used = integer(ram?.get(6));
  const bytes = (n: number | null) => (units === null || units <= 0 || n === null || n < 0 ? null : n * units);
  const total = bytes(size);
  const inUse = bytes(used);
  return {
    // hrProcessorLoad is 0 to 100 by definition; an agent that says otherwise is not believed
    cpuPercent: cpuPercent !== null && cpuPercent >= 0 && cpuPercent <= 100 ? cpuPercent : null,
    memoryUsedBytes: total !== null && inUse !== null && inUse <= total ? inUse : null,
    memoryTotalBytes: total,
  };
}

/**
 * A bridge's learned forwarding entries: Q-BRIDGE-MIB's dot1qTpFdbTable where
 * the agent has it (the VLAN from the FDB id, see vlanOfFdb), else
 * BRIDGE-MIB's dot1dTpFdbTable (no VLAN); and its ports' spanning-tree state
 * (dot1dStpPortState), read in the same walk as the base ports, so it costs
 * no round trip of its own. Bridge ports mapped to ifIndex by
 * dot1dBasePortTable. Forwarding null when the agent has no dot1dBasePortTable.
 */
async function pollBridge(client: SnmpClient): Promise<Pick<DevicePoll, 'forwarding' | 'stpStates'>> {
  const [basePorts = new Map(), stpPorts = new Map(), qFdb = new Map()] = await walkTables(client, [
    [DOT1D_BASE_PORT_ENTRY, [2]],
    [DOT1D_STP_PORT_ENTRY, [3]],
    [DOT1Q_TP_FDB_ENTRY, [2, 3]],
  ]);
  if (basePorts.size === 0) return { forwarding: null, stpStates: new Map() };
  const ifIndexOf = new Map<number, number>();
  for (const [port, row] of basePorts) {
    const ifIndex = integer(row.get(2));
    if (ifIndex !== null && ifIndex > 0) ifIndexOf.set(Number(port), ifIndex);
  }
  const stpStates = decodeStpStates(stpPorts, ifIndexOf);
  if (qFdb.size > 0) return { forwarding: decodeQBridgeFdb(qFdb, await walkTable(client, DOT1Q_VLAN_CURRENT_ENTRY, [3]), ifIndexOf), stpStates };
  return { forwarding: decodeBridgeFdb(await walkTable(client, DOT1D_TP_FDB_ENTRY, [1, 2, 3]), ifIndexOf), stpStates };
}

/** dot1dStpPortTable's states by the ifIndex of their bridge port; rows without an ifIndex or with a value outside the MIB's are left out. */
export function decodeStpStates(rows: Table, ifIndexOf: ReadonlyMap<number, number>): Map<number, StpState> {
  const states = new Map<number, StpState>();
  for (const [port, row] of rows) {
    const ifIndex = ifIndexOf.get(Number(port));
    const state = STP_STATES[(integer(row.get(3)) ?? 0) - 1];
    if (ifIndex !== undefined && state !== undefined) states.set(ifIndex, state);
  }
  return states;
}

/** dot1dTpFdbTable's learned rows whose bridge port has an ifIndex. */
export function decodeBridgeFdb(rows: Table, ifIndexOf: ReadonlyMap<number, number>): PolledFdbEntry[] {
  const entries: PolledFdbEntry[] = [];
  for (const [index, row] of rows) {
    const mac = macAddress(row.get(1)) ?? macOfIndex(index.split('.').map(Number));
    const ifIndex = ifIndexOf.get(integer(row.get(2)) ?? 0);
    if (mac !== null && ifIndex !== undefined && integer(row.get(3)) === FDB_LEARNED) entries.push({ macAddress: mac, vlanID: null, ifIndex });
  }
  return entries;
}

/** dot1qTpFdbTable's learned rows whose bridge port has an ifIndex, each with the VLAN of its FDB id. */
export function decodeQBridgeFdb(rows: Table, vlanRows: Table, ifIndexOf: ReadonlyMap<number, number>): PolledFdbEntry[] {
  const vlansOfFdb = new Map<number, number[]>();
  for (const [index, row] of vlanRows) {
    const vlan = Number(index.split('.')[1]);
    const fdbId = integer(row.get(3));
    if (fdbId !== null && Number.isInteger(vlan)) vlansOfFdb.set(fdbId, [...(vlansOfFdb.get(fdbId) ?? []), vlan]);
  }
  const entries: PolledFdbEntry[] = [];
  for (const [index, row] of rows) {
    const [fdbId, ...address] = index.split('.').map(Number);
    const mac = macOfIndex(address);
    const ifIndex = ifIndexOf.get(integer(row.get(2)) ?? 0);
    if (fdbId === undefined || mac === null || ifIndex === undefined || integer(row.get(3)) !== FDB_LEARNED) continue;
    entries.push({ macAddress: mac, vlanID: vlanOfFdb(fdbId, vlansOfFdb), ifIndex });
  }
  return entries;
}

/**
 * The VLAN of an FDB id (docs/collector.md): the VLAN dot1qVlanCurrentTable
 * gives it, the lowest when several VLANs share it (shared VLAN learning);
 * when the table names none, the FDB id itself, as on switches with one FDB
 * per VLAN (independent VLAN learning, the common case). Null when that is no VLAN number.
 */
export function vlanOfFdb(fdbId: number, vlansOfFdb: ReadonlyMap<number, readonly number[]>): number | null {
  const vlans = vlansOfFdb.get(fdbId);
  const vlan = vlans === undefined || vlans.length === 0 ? fdbId : Math.min(...vlans);
  return isVlanId(vlan) ? vlan : null;
}

/** The MAC address of an index's six decimal parts. */
function macOfIndex(parts: readonly number[]): string | null {
  if (parts.length !== 6 || parts.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) return null;
  return parts.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** A table's rows by index (the OID's part after the column), each a map of column number to value. */
export type Table = Map<string, Map<number, SnmpValue>>;

/**
 * The `columns` of the table under `entry`, walked side by side (one GETBULK
 * reads several columns: docs/benchmarks.md#collector); only the columns a
 * decoder reads, so a row is there when one of them has it. Rows in the order
 * a walk of the whole table meets them, column by column.
 */
async function walkTable(client: SnmpClient, entry: string, columns: readonly number[]): Promise<Table> {
  return (await walkTables(client, [[entry, columns]]))[0] as Table;
}

/** walkTable of several tables at once: their columns in one multi-column walk, each table's rows apart. */
async function walkTables(client: SnmpClient, tables: readonly (readonly [entry: string, columns: readonly number[]])[]): Promise<Table[]> {
  const columns = tables.flatMap(([entry, cs], t) => cs.map((c) => ({ t, entry, c })));
  const walked = await client.walkColumns(columns.map(({ entry, c }) => `${entry}.${c}`));
  const rows = tables.map((): Table => new Map());
  walked.forEach((objects, k) => {
    const { t, entry, c } = columns[k] as (typeof columns)[number];
    addColumn(rows[t] as Table, `${entry}.${c}.`, c, objects);
  });
  return rows;
}

function addColumn(rows: Table, prefix: string, column: number, objects: readonly SnmpObject[]): void {
  for (const object of objects) {
    const index = object.oid.slice(prefix.length);
    if (index === '') continue;
    let row = rows.get(index);
    if (row === undefined) rows.set(index, (row = new Map()));
    row.set(column, object.value);
  }
}

function readInterface(ifIndex: number, row: Map<number, SnmpValue>, xrow: Map<number, SnmpValue> | undefined): PolledInterface {
  const highSpeed = integer(xrow?.get(IFX.highSpeed));
  const speed = integer(row.get(IF.speed));
  return {
    ifIndex,
    name: text(xrow?.get(IFX.name)) ?? text(row.get(IF.descr)) ?? `ifIndex ${ifIndex}`,
    alias: text(xrow?.get(IFX.alias)),
    type: integer(row.get(IF.type)) ?? 1,
    isEnabled: integer(row.get(IF.adminStatus)) === 1,
    isConnected: integer(row.get(IF.operStatus)) === 1,
    speedMbps: highSpeed !== null && highSpeed > 0 ? highSpeed : speed !== null && speed > 0 ? Math.round(speed / 1e6) : null,
    macAddress: macAddress(row.get(IF.physAddress)),
    counters: readCounters(row, xrow),
  };
}

/** The 64-bit counters where the agent has them, else the 32-bit ones (which the collector unwraps). */
function readCounters(row: Map<number, SnmpValue>, xrow: Map<number, SnmpValue> | undefined): InterfaceCounters | null {
  const errors = { rxErrors: counter(row.get(IF.inErrors)) ?? 0n, txErrors: counter(row.get(IF.outErrors)) ?? 0n };
  const hc = [IFX.hcInOctets, IFX.hcOutOctets, IFX.hcInUcastPkts, IFX.hcOutUcastPkts].map((c) => counter(xrow?.get(c)));
  if (hc.every((v) => v !== null)) {
    const [rxBytes, txBytes, rxPackets, txPackets] = hc as bigint[];
    return { rxBytes: rxBytes as bigint, txBytes: txBytes as bigint, rxPackets: rxPackets as bigint, txPackets: txPackets as bigint, ...errors, wide: true };
  }
  const narrow = [IF.inOctets, IF.outOctets, IF.inUcastPkts, IF.outUcastPkts].map((c) => counter(row.get(c)));
  if (!narrow.every((v) => v !== null)) return null;
  const [rxBytes, txBytes, rxPackets, txPackets] = narrow as bigint[];
  return { rxBytes: rxBytes as bigint, txBytes: txBytes as bigint, rxPackets: rxPackets as bigint, txPackets: txPackets as bigint, ...errors, wide: false };
}

function neighboursFromPhysical(rows: Table): PolledNeighbour[] {
  const neighbours: PolledNeighbour[] = [];
  for (const [index, row] of rows) {
    // ifIndex.addressType.length.address...; IPv4 (1) and IPv6 (2)
    const parts = index.split('.').map(Number);
    const [ifIndex, type, length] = parts;
    const mac = macAddress(row.get(4));
    if (ifIndex === undefined || mac === null || integer(row.get(6)) === NEIGHBOUR_INVALID) continue;
    const address = parts.slice(3);
    if (address.length !== length) continue;
    const ip = type === 1 && length === 4 ? address.join('.') : type === 2 && length === 16 ? ipv6(address) : null;
    if (ip !== null) neighbours.push({ ifIndex, ip, macAddress: mac });
  }
  return neighbours;
}

function neighboursFromMedia(rows: Table): PolledNeighbour[] {
  const neighbours: PolledNeighbour[] = [];
  for (const [index, row] of rows) {
    const [ifIndex, ...address] = index.split('.').map(Number);
    const mac = macAddress(row.get(2));
    if (ifIndex === undefined || mac === null || address.length !== 4 || integer(row.get(4)) === NEIGHBOUR_INVALID) continue;
    neighbours.push({ ifIndex, ip: address.join('.'), macAddress: mac });
  }
  return neighbours;
}

function ipv6(bytes: number[]): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // the URL parser writes an IPv6 address in its canonical (RFC 5952) form
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

function text(value: SnmpValue | undefined): string | null {
  if (Buffer.isBuffer(value)) {
    const decoded = value.toString('utf8').replace(/\0+$/, '').trim();
    return decoded === '' ? null : decoded;
  }
  return typeof value === 'string' && value !== '' ? value : null;
}

function integer(value: SnmpValue | undefined): number | null {
  return typeof value === 'number' ? value : null;
}

function counter(value: SnmpValue | undefined): bigint | null {
  if (typeof value === 'bigint') return value;
  return typeof value === 'number' ? BigInt(value) : null;
}

function macAddress(value: SnmpValue | undefined): string | null {
  if (!Buffer.isBuffer(value) || value.length !== 6 || value.every((b) => b === 0)) return null;
  return [...value].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

