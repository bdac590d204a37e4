import { MAX_FREE_FORM_NESTING, jsonValueNesting } from '../formats/json-input.js';

/** The most reports one request may carry. */
export const MAX_REPORTS_PER_REQUEST = 500;
/** How far ahead of the server's clock an observedAt may be. */
export const MAX_CLOCK_AHEAD_MS = 5 * 60_000;

const PORT_TYPES = ['COPPER', 'SFP', 'CELLULAR', 'WIRELESS'] as const;
const RADIO_BANDS = ['BAND_2_4G', 'BAND_5G', 'BAND_6G'] as const;
/** Event types only netgraph records; a device may not report them. */
export const NETGRAPH_EVENT_TYPES = ['DEVICE_ONLINE', 'DEVICE_OFFLINE'] as const;
/** The most entries a switch's `macTable` may hold (the API prices switchMACTable from it). */
export const MAX_MAC_TABLE_ENTRIES = 8192;
const MAX_LIST = { interfaces: 1024, uplinkSamples: 1000, radios: 64, clients: 5000, events: 100, macTable: MAX_MAC_TABLE_ENTRIES } as const;
const MAX_DETAILS_BYTES = 8 * 1024;

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const EVENT_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** One port of a report; `counters` are cumulative since the device booted. */
export interface PortReport {
  readonly portNumber: number;
  readonly label: string | null;
  readonly portType: string | null;
  readonly isEnabled: boolean;
  readonly isConnected: boolean;
  readonly isUplink: boolean;
  /** null on ports that are not uplinks. */
  readonly isUplinkActive: boolean | null;
  readonly isTrunkPort: boolean;
  readonly portSpeedMbps: number | null;
  readonly nativeVLANID: number | null;
  readonly counters: Counters | null;
  /** LLDP (issue 30): the neighbour the port sees; null when none. */
  readonly lldpNeighbor: LldpNeighborReport | null;
}

export interface Counters {
  readonly rxBytes: number;
  readonly txBytes: number;
  readonly rxPackets: number;
  readonly txPackets: number;
  readonly rxErrors: number;
  readonly txErrors: number;
}

export interface UplinkSampleReport {
  readonly portNumber: number;
  /** Canonical ISO 8601 UTC with milliseconds. */
  readonly observedAt: string;
  readonly latencyMs: number | null;
  readonly jitterMs: number | null;
  readonly lossPercent: number | null;
  readonly rxBitsPerSecond: number | null;
  readonly txBitsPerSecond: number | null;
}

export interface RadioReport {
  /** Lowercase. */
  readonly bssid: string;
  readonly radioBand: string;
  readonly ssid: string | null;
  readonly isActive: boolean;
}

export interface ClientReport {
  /** Lowercase. */
  readonly macAddress: string;
  readonly ip: string | null;
  readonly hostname: string | null;
  readonly isWireless: boolean;
  /** dBm; null for wired clients. */
  readonly signal: number | null;
  readonly vlanID: number | null;
  readonly ssid: string | null;
  readonly portNumber: number | null;
}

/** One entry of a switch's MAC forwarding table: where the switch forwards frames to `macAddress` in `vlanID`. */
export interface MacTableEntryReport {
  /** Lowercase. */
  readonly macAddress: string;
  /** null: the bridge has no VLANs. */
  readonly vlanID: number | null;
  readonly portNumber: number;
}

export interface EventReport {
  readonly type: string;
  readonly observedAt: string;
  /** JSON text, or null. */
  readonly details: string | null;
}

// ---- LLDP neighbours and CPU/memory (issue 30) -----------------------------
// Per port `lldpNeighbor`, per report `cpuPercent`, `memoryUsedBytes` and
// `memoryTotalBytes`; docs/reports.md lists them with their bounds.

/** The longest LLDP text the protocol keeps (chassis and port ids, descriptions, names: 255 octets in LLDP). */
export const MAX_LLDP_TEXT = 255;

/** The LLDP neighbour a port sees: what the neighbour's LLDP advertisement says of itself. */
export interface LldpNeighborReport {
  /** A MAC address lowercased; otherwise as sent. */
  readonly chassisID: string;
  readonly portID: string | null;
  readonly portDescription: string | null;
  readonly systemName: string | null;
}

function parseLldpNeighbor(value: unknown, at: string): LldpNeighborReport | null {
  if (value === undefined || value === null) return null;
  const neighbor = object(value, at);
  const chassisID = text(neighbor.chassisID, `${at}.chassisID`, MAX_LLDP_TEXT);
  return {
    chassisID: MAC.test(chassisID) ? chassisID.toLowerCase() : chassisID,
    portID: optionalText(neighbor.portID, `${at}.portID`, MAX_LLDP_TEXT),
    portDescription: optionalText(neighbor.portDescription, `${at}.portDescription`, MAX_LLDP_TEXT),
    systemName: optionalText(neighbor.systemName, `${at}.systemName`, MAX_LLDP_TEXT),
  };
}

/** The device's CPU and memory; a field left out leaves the stored value as it was, null clears it. */
interface ResourceReport {
  readonly cpuPercent: number | null | undefined;
  readonly memoryUsedBytes: number | null | undefined;
  readonly memoryTotalBytes: number | null | undefined;
}

function parseResources(report: Json, at: string): ResourceReport {
  const optional = <T>(value: unknown, parse: (v: unknown) => T): T | undefined => (value === undefined ? undefined : parse(value));
  const resources = {
    cpuPercent: optional(report.cpuPercent, (v) => optionalNumber(v, `${at}.cpuPercent`, 0, 100)),
    memoryUsedBytes: optional(report.memoryUsedBytes, (v) => optionalInteger(v, `${at}.memoryUsedBytes`, 0, Number.MAX_SAFE_INTEGER)),
    memoryTotalBytes: optional(report.memoryTotalBytes, (v) => optionalInteger(v, `${at}.memoryTotalBytes`, 0, Number.MAX_SAFE_INTEGER)),
  };
  const { memoryUsedBytes: used, memoryTotalBytes: total } = resources;
  if (typeof used === 'number' && typeof total === 'number' && used > total) {
    throw new Invalid(`${at}.memoryUsedBytes`, `is larger than memoryTotalBytes (${total}): send the memory in use and the memory installed, both in bytes`);
  }
  return resources;
}

// ---- end of issue 30's block ------------------------------------------------

/** A valid report. A section that is undefined was absent: it leaves the device's earlier state as it was. */
export interface DeviceReport extends ResourceReport {
  readonly reportId: string;
  readonly serialNumber: string;
  /** Canonical ISO 8601 UTC with milliseconds, so it orders as text on both stores. */
  readonly observedAt: string;
  readonly uptimeSeconds: number | null | undefined;
  readonly macAddress: string | null | undefined;
  readonly interfaces: readonly PortReport[] | undefined;
  readonly uplinkSamples: readonly UplinkSampleReport[] | undefined;
  readonly radios: readonly RadioReport[] | undefined;
  readonly clients: readonly ClientReport[] | undefined;
  readonly events: readonly EventReport[] | undefined;
  readonly macTable: readonly MacTableEntryReport[] | undefined;
}

/** Why one report of a batch was refused; `path` names the offending field, e.g. `reports[3].clients[0].macAddress`. */
export interface Rejection {
  readonly index: number;
  readonly code: 'BAD_USER_INPUT' | 'UNAUTHORIZED';
  readonly path: string;
  readonly message: string;
}

/** The times a report's observedAt values must fall between, in ms since the epoch. */
export interface TimeWindow {
  readonly earliest: number;
  readonly latest: number;
}

/** Thrown inside validation; caught per report and turned into its Rejection. */
class Invalid extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

/**
 * Checks one report of a batch: a DeviceReport with MAC addresses and BSSIDs
 * lowercased and times canonical, or the Rejection of its first problem.
 * Fields the protocol does not know are ignored (senders may be newer).
 */
export function parseReport(value: unknown, index: number, window: TimeWindow): DeviceReport | Rejection {
  const at = `reports[${index}]`;
  try {
    const report = object(value, at);
    return {
      reportId: text(report.reportId, `${at}.reportId`, 128),
      serialNumber: text(report.serialNumber, `${at}.serialNumber`, 100),
      observedAt: time(report.observedAt, `${at}.observedAt`, window),
      uptimeSeconds: report.uptimeSeconds === undefined ? undefined : optionalInteger(report.uptimeSeconds, `${at}.uptimeSeconds`, 0, Number.MAX_SAFE_INTEGER),
      macAddress: report.macAddress === undefined ? undefined : optionalMac(report.macAddress, `${at}.macAddress`),
      interfaces: section(report.interfaces, `${at}.interfaces`, MAX_LIST.interfaces, parsePort, (p) => String(p.portNumber), 'portNumber'),
      uplinkSamples: section(report.uplinkSamples, `${at}.uplinkSamples`, MAX_LIST.uplinkSamples, (v, p) => parseSample(v, p, window)),
      radios: section(report.radios, `${at}.radios`, MAX_LIST.radios, parseRadio, (r) => r.bssid, 'BSSID'),
      clients: section(report.clients, `${at}.clients`, MAX_LIST.clients, parseClient, (c) => c.macAddress, 'macAddress'),
      events: section(report.events, `${at}.events`, MAX_LIST.events, (v, p) => parseEvent(v, p, window)),
      macTable: section(report.macTable, `${at}.macTable`, MAX_LIST.macTable, parseMacEntry, (e) => `${e.macAddress} in VLAN ${e.vlanID ?? 'none'}`, 'macAddress'),
      ...parseResources(report, at),
    };
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    return { index, code: 'BAD_USER_INPUT', path: error.path, message: error.message };
  }
}

/** True when parseReport refused the report. */
export function isRejection(result: DeviceReport | Rejection): result is Rejection {
  return 'code' in result;
}

/**
 * An optional list: undefined when absent, else each element parsed. With
 * `identity`, two elements with the same identity are refused at the second.
 */
function section<T>(
  value: unknown,
  at: string,
  max: number,
  parse: (value: unknown, at: string) => T,
  identity?: (element: T) => string,
  identityField?: string,
): T[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new Invalid(at, 'must be a list (or left out)');
  if (value.length > max) throw new Invalid(at, `holds ${value.length} entries; at most ${max} are allowed`);
  const seen = new Set<string>();
  return value.map((element, i) => {
    const parsed = parse(element, `${at}[${i}]`);
    if (identity) {
      const key = identity(parsed);
      if (seen.has(key)) throw new Invalid(`${at}[${i}].${identityField ?? ''}`, `repeats ${key}: each may appear once per report`);
      seen.add(key);
    }
    return parsed;
  });
}

function parsePort(value: unknown, at: string): PortReport {
  const port = object(value, at);
  const isUplink = optionalBoolean(port.isUplink, `${at}.isUplink`) ?? false;
  const isUplinkActive = optionalBoolean(port.isUplinkActive, `${at}.isUplinkActive`);
  return {
    portNumber: integer(port.portNumber, `${at}.portNumber`, 0, 65_535),
    label: optionalText(port.label, `${at}.label`, 100),
    portType: optionalOneOf(port.portType, `${at}.portType`, PORT_TYPES),
    isEnabled: optionalBoolean(port.isEnabled, `${at}.isEnabled`) ?? true,
    isConnected: optionalBoolean(port.isConnected, `${at}.isConnected`) ?? false,
    isUplink,
    isUplinkActive: isUplink ? (isUplinkActive ?? false) : null,
    isTrunkPort: optionalBoolean(port.isTrunkPort, `${at}.isTrunkPort`) ?? false,
    portSpeedMbps: optionalInteger(port.portSpeedMbps, `${at}.portSpeedMbps`, 0, 10_000_000),
    nativeVLANID: optionalInteger(port.nativeVLANID, `${at}.nativeVLANID`, 1, 4094),
    counters: port.counters === undefined || port.counters === null ? null : parseCounters(port.counters, `${at}.counters`),
    lldpNeighbor: parseLldpNeighbor(port.lldpNeighbor, `${at}.lldpNeighbor`),
  };
}

function parseCounters(value: unknown, at: string): Counters {
  const counters = object(value, at);
  const counter = (name: keyof Counters) => integer(counters[name], `${at}.${name}`, 0, Number.MAX_SAFE_INTEGER);
  return {
    rxBytes: counter('rxBytes'),
    txBytes: counter('txBytes'),
    rxPackets: counter('rxPackets'),
    txPackets: counter('txPackets'),
    rxErrors: counter('rxErrors'),
    txErrors: counter('txErrors'),
  };
}

function parseSample(value: unknown, at: string, window: TimeWindow): UplinkSampleReport {
  const sample = object(value, at);
  return {
    portNumber: integer(sample.portNumber, `${at}.portNumber`, 0, 65_535),
    observedAt: time(sample.observedAt, `${at}.observedAt`, window),
    latencyMs: optionalNumber(sample.latencyMs, `${at}.latencyMs`, 0, 3_600_000),
    jitterMs: optionalNumber(sample.jitterMs, `${at}.jitterMs`, 0, 3_600_000),
    lossPercent: optionalNumber(sample.lossPercent, `${at}.lossPercent`, 0, 100),
    rxBitsPerSecond: optionalNumber(sample.rxBitsPerSecond, `${at}.rxBitsPerSecond`, 0, 1e15),
    txBitsPerSecond: optionalNumber(sample.txBitsPerSecond, `${at}.txBitsPerSecond`, 0, 1e15),
  };
}

function parseRadio(value: unknown, at: string): RadioReport {
  const radio = object(value, at);
  return {
    bssid: mac(radio.BSSID, `${at}.BSSID`),
    radioBand: oneOf(radio.radioBand, `${at}.radioBand`, RADIO_BANDS),
    ssid: optionalText(radio.ssid, `${at}.ssid`, 32),
    isActive: optionalBoolean(radio.isActive, `${at}.isActive`) ?? true,
  };
}

function parseClient(value: unknown, at: string): ClientReport {
  const client = object(value, at);
  const isWireless = optionalBoolean(client.isWireless, `${at}.isWireless`) ?? false;
  const signal = optionalInteger(client.signal, `${at}.signal`, -150, 0);
  return {
    macAddress: mac(client.macAddress, `${at}.macAddress`),
    ip: optionalText(client.ip, `${at}.ip`, 64),
    hostname: optionalText(client.hostname, `${at}.hostname`, 255),
    isWireless,
    // dBm means nothing on a wire
    signal: isWireless ? signal : null,
    vlanID: optionalInteger(client.vlanID, `${at}.vlanID`, 1, 4094),
    ssid: optionalText(client.ssid, `${at}.ssid`, 32),
    portNumber: optionalInteger(client.portNumber, `${at}.portNumber`, 0, 65_535),
  };
}

function parseMacEntry(value: unknown, at: string): MacTableEntryReport {
  const entry = object(value, at);
  return {
    macAddress: mac(entry.macAddress, `${at}.macAddress`),
    vlanID: optionalInteger(entry.vlanID, `${at}.vlanID`, 1, 4094),
    portNumber: integer(entry.portNumber, `${at}.portNumber`, 0, 65_535),
  };
}

function parseEvent(value: unknown, at: string, window: TimeWindow): EventReport {
  const event = object(value, at);
  const type = text(event.type, `${at}.type`, 64);
  if (!EVENT_TYPE.test(type)) throw new Invalid(`${at}.type`, 'must be an upper-case name of letters, digits and underscores, e.g. DEVICE_BOOT');
  if ((NETGRAPH_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new Invalid(`${at}.type`, `${type} is recorded by netgraph itself from the reports' times; a device may not report it`);
  }
  let details: string | null = null;
  if (event.details !== undefined && event.details !== null) {
    if (typeof event.details !== 'object' || Array.isArray(event.details)) throw new Invalid(`${at}.details`, 'must be a JSON object (or null)');
    // measured before JSON.stringify, which recurses
    if (jsonValueNesting(event.details, MAX_FREE_FORM_NESTING) > MAX_FREE_FORM_NESTING) {
      throw new Invalid(`${at}.details`, `nests arrays and objects deeper than ${MAX_FREE_FORM_NESTING} levels`);
    }
    details = JSON.stringify(event.details);
    if (Buffer.byteLength(details) > MAX_DETAILS_BYTES) throw new Invalid(`${at}.details`, `is larger than ${MAX_DETAILS_BYTES} bytes as JSON`);
  }
  return { type, observedAt: time(event.observedAt, `${at}.observedAt`, window), details };
}

function object(value: unknown, at: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Invalid(at, 'must be a JSON object');
  return value as Json;
}

function text(value: unknown, at: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Invalid(at, 'is required: a non-empty string');
  if (value.length > max) throw new Invalid(at, `is longer than ${max} characters`);
  // neither store keeps a NUL in text alike (PostgreSQL refuses it)
  if (value.includes('\u0000')) throw new Invalid(at, 'must not contain a NUL character');
  return value;
}

function optionalText(value: unknown, at: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new Invalid(at, 'must be a string or null');
  if (value.length > max) throw new Invalid(at, `is longer than ${max} characters`);
  // neither store keeps a NUL in text alike (PostgreSQL refuses it)
  if (value.includes('\u0000')) throw new Invalid(at, 'must not contain a NUL character');
  return value;
}

function integer(value: unknown, at: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new Invalid(at, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

function optionalInteger(value: unknown, at: string, min: number, max: number): number | null {
  return value === undefined || value === null ? null : integer(value, at, min, max);
}

function optionalNumber(value: unknown, at: string, min: number, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new Invalid(at, `must be a number from ${min} to ${max}, or null`);
  }
  return value;
}

function optionalBoolean(value: unknown, at: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw new Invalid(at, 'must be true or false');
  return value;
}

function oneOf<T extends string>(value: unknown, at: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new Invalid(at, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function optionalOneOf<T extends string>(value: unknown, at: string, allowed: readonly T[]): T | null {
  return value === undefined || value === null ? null : oneOf(value, at, allowed);
}

function mac(value: unknown, at: string): string {
  if (typeof value !== 'string' || !MAC.test(value)) throw new Invalid(at, 'must be a MAC address like 0c:8d:db:00:00:01');
  return value.toLowerCase();
}

function optionalMac(value: unknown, at: string): string | null {
  return value === null ? null : mac(value, at);
}

/** An RFC 3339 time inside the window, as canonical ISO 8601 UTC. */
function time(value: unknown, at: string, window: TimeWindow): string {
  const ms = typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new Invalid(at, 'must be an RFC 3339 date-time with a time zone, e.g. 2026-11-24T10:00:00Z');
  if (ms > window.latest) throw new Invalid(at, 'is more than 5 minutes in the future: check the sender\'s clock');
  if (ms < window.earliest) throw new Invalid(at, 'is older than the raw telemetry retention (TELEMETRY_RAW_RETENTION_HOURS); such reports are not kept');
  return new Date(ms).toISOString();
}
