/**
 * The device report protocol of `POST /api/v1/reports`, defined once. A
 * contract: fields may be added, never renamed.
 *
 * From this one schema come the types a sender builds (`Report`, `*Input`:
 * the simulator, the SNMP collector), the types ingest works with once a
 * report is parsed (`DeviceReport`, `*Report`: each element's `Type.Decode`
 * callback says how), the validator with its paths and messages
 * (report.parse.ts) and the field table of docs/reports.md
 * (report.docs.ts, `npm run schema`).
 *
 * Adding a field: add it to its element's `Type.Object` below (with a
 * `description`, which is its line in the docs table) and to that element's
 * decode callback; `npm run schema`. A field's rule and message come from its
 * builder (`text`, `wholeNumber`, `mac`, ...); a new kind of rule gets a
 * builder here and its message in report.parse.ts.
 */
import Type from 'typebox';
import type { Static, StaticDecode, TSchema } from 'typebox';
import { MAC_ADDRESS_ANY_CASE_PATTERN, RFC3339_PATTERN, VLAN_ID } from '../kernel/rules.js';
import { isMacAddress } from '../kernel/formats.js';
import { MAX_FREE_FORM_NESTING } from '../kernel/json-input.js';
import {
  MAX_MAC_TABLE_ENTRIES,
  MAX_CLIENTS,
  MAX_OUTLETS,
  NETGRAPH_EVENT_TYPES,
  MAX_DETAILS_BYTES,
  CLIENT_CONNECTION_EVENT_TYPES,
  MAX_CONNECTION_EVENTS_PER_CLIENT,
  MAX_CONNECTION_EVENT_CLIENTS,
  PORT_TYPES,
  RADIO_BANDS,
  HW_MODES,
  MAX_WIFI_CHANNEL,
  CHANNEL_WIDTHS_MHZ,
  STP_STATES,
  MAX_POLL_ERROR,
} from './report.limits.js';
import type { RadioBand, StpState } from './report.limits.js';

/**
 * The JSON Schema keywords the builders below write, as the validator
 * (report.parse.ts) and the docs table (report.docs.ts) read them.
 */
export interface SchemaNode {
  readonly type?: string;
  readonly anyOf?: readonly SchemaNode[];
  readonly enum?: readonly (string | number)[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly pattern?: string;
  /** Names a kind of string (STRING_KIND), or free-form JSON; the docs table's type. */
  readonly title?: string;
  readonly description?: string;
  /** What null or absent means. */
  readonly default?: unknown;
  /** The message for a string that misses its pattern. */
  readonly errorMessage?: string;
  /** Values the pattern lets through that a device may not send (event types netgraph records itself). */
  readonly reserved?: readonly string[];
  /** A free-form JSON object's deepest nesting and largest size as JSON text. */
  readonly maxNesting?: number;
  readonly maxBytes?: number;
}

// ---------------------------------------------------------------------------
// The builders: each kind of field, as JSON Schema. report.parse.ts words a
// field's message from these keywords, report.docs.ts its type column.

const MAX_PORT_NUMBER = 65_535;
/** Text with neither a NUL (PostgreSQL refuses it) nor, when required, only blanks. */
const TEXT = '^[^\\u0000]*$';
const REQUIRED_TEXT = '^(?=[\\s\\S]*\\S)[^\\u0000]*$';
/** `title` of the string kinds, which the docs table names and the validator recognises. */
export const STRING_KIND = {
  mac: 'MAC address',
  time: 'RFC 3339 date-time with a time zone',
  ip: 'IP address',
} as const;

type Doc = { readonly description?: string };

/**
 * A string of at most `max` characters, counted as JavaScript (and the rest
 * of the API) counts them: UTF-16 code units. JSON Schema's maxLength counts
 * code points, so the refinement holds the line; maxLength says it in the schema.
 */
const string = (max: number, options: { readonly pattern: string } & Record<string, unknown>) =>
  Type.Refine(Type.String({ maxLength: max, ...options }), (value) => value.length <= max);
/** A required, non-blank string of at most `max` characters. */
const text = (max: number, doc: Doc = {}) => string(max, { pattern: REQUIRED_TEXT, ...doc });
/** A string of at most `max` characters, null or left out. */
const optionalText = (max: number, doc: Doc = {}) => Type.Optional(Type.Union([string(max, { pattern: TEXT }), Type.Null()], doc));
/** A required whole number from `min` to `max`. */
const wholeNumber = (min: number, max: number, doc: Doc = {}) => Type.Integer({ minimum: min, maximum: max, ...doc });
/** A whole number from `min` to `max`, null or left out. */
const optionalWholeNumber = (min: number, max: number, doc: Doc = {}) => Type.Optional(Type.Union([wholeNumber(min, max), Type.Null()], doc));
/** A number (fractions allowed) from `min` to `max`, null or left out. */
const optionalNumber = (min: number, max: number, doc: Doc = {}) => Type.Optional(Type.Union([Type.Number({ minimum: min, maximum: max }), Type.Null()], doc));
/** True or false, null or left out for `fallback`. */
const flag = (fallback: boolean, doc: Doc = {}) => Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { default: fallback, ...doc }));
/** A MAC address in either case (parsed lowercase). */
const mac = (doc: Doc = {}) => Type.String({ pattern: MAC_ADDRESS_ANY_CASE_PATTERN, title: STRING_KIND.mac, errorMessage: 'must be a MAC address like 0c:8d:db:00:00:01', ...doc });
/** An RFC 3339 time (parsed canonical), inside the window the server allows (report.parse.ts). */
const time = (doc: Doc = {}) =>
  Type.String({ pattern: RFC3339_PATTERN, title: STRING_KIND.time, errorMessage: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-11-24T10:00:00Z', ...doc });
/** An IPv4 or IPv6 address (node:net's isIP; report.parse.ts checks it, the pattern only bounds its characters). */
const ipAddress = (doc: Doc = {}) =>
  Type.String({ pattern: '^[0-9A-Fa-f:.]{2,45}$', title: STRING_KIND.ip, errorMessage: 'must be an IPv4 or IPv6 address, e.g. 203.0.113.7', ...doc });
/** One of `values`. */
const oneOf = <T extends string | number>(values: readonly T[], doc: Doc = {}) => Type.Enum([...values], doc);
/** A section: a list of at most `max` elements, or left out (it then leaves the earlier state as it was). */
const section = <T extends TSchema>(items: T, max: number, doc: Doc = {}) => Type.Optional(Type.Array(items, { maxItems: max, ...doc }));
const portNumber = (doc: Doc = {}) => wholeNumber(0, MAX_PORT_NUMBER, doc);
const vlanId = (doc: Doc = {}) => optionalWholeNumber(VLAN_ID.min, VLAN_ID.max, doc);

const lower = (value: string): string => value.toLowerCase();
/** Canonical ISO 8601 UTC; throws a RangeError for a time Date.parse refuses (report.parse.ts then refuses the report). */
const canonical = (value: string): string => new Date(Date.parse(value)).toISOString();

// ---------------------------------------------------------------------------
// The elements, each with the decode callback that turns what was sent into
// what ingest keeps: defaults filled, absent as null, MACs lowercase, times
// canonical (ISO 8601 UTC with milliseconds, so they order as text).

const CountersSchema = Type.Object({
  rxBytes: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  txBytes: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  rxPackets: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  txPackets: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  rxErrors: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  txErrors: wholeNumber(0, Number.MAX_SAFE_INTEGER),
});

/** The six counters and nothing else a sender put beside them (decoded in the port's callback: a port then needs no copy of its own). */
const countersOf = (c: Static<typeof CountersSchema>): Static<typeof CountersSchema> => ({
  rxBytes: c.rxBytes,
  txBytes: c.txBytes,
  rxPackets: c.rxPackets,
  txPackets: c.txPackets,
  rxErrors: c.rxErrors,
  txErrors: c.txErrors,
});

/** The longest LLDP text the protocol keeps (chassis and port ids, descriptions, names: 255 octets in LLDP). */
export const MAX_LLDP_TEXT = 255;

/** The LLDP neighbour a port sees: what the neighbour's advertisement says of itself (issue 30). */
const LldpNeighborSchema = Type.Decode(
  Type.Object({
    chassisID: text(MAX_LLDP_TEXT, { description: 'lowercased when it is a MAC address, otherwise kept as sent' }),
    portID: optionalText(MAX_LLDP_TEXT),
    portDescription: optionalText(MAX_LLDP_TEXT),
    systemName: optionalText(MAX_LLDP_TEXT),
  }),
  (n) => ({
    chassisID: isMacAddress(lower(n.chassisID)) ? lower(n.chassisID) : n.chassisID,
    portID: n.portID ?? null,
    portDescription: n.portDescription ?? null,
    systemName: n.systemName ?? null,
  }),
);

const PortSchema = Type.Decode(
  Type.Object({
    portNumber: portNumber({ description: 'unique within a report' }),
    label: optionalText(100),
    portType: Type.Optional(Type.Union([oneOf(PORT_TYPES), Type.Null()])),
    isEnabled: flag(true),
    isConnected: flag(false),
    isUplink: flag(false),
    isUplinkActive: flag(false, { description: 'kept for uplinks only; `null` on ports that are not uplinks' }),
    isTrunkPort: flag(false),
    portSpeedMbps: optionalWholeNumber(0, 10_000_000),
    nativeVLANID: vlanId(),
    counters: Type.Optional(
      Type.Union([CountersSchema, Type.Null()], {
        description: 'cumulative since the device booted (they fall back to small numbers after a reboot); all six when given',
      }),
    ),
    lldpNeighbor: Type.Optional(Type.Union([LldpNeighborSchema, Type.Null()], { description: 'the LLDP neighbour the port sees; null or left out when none' })),
    stpState: Type.Optional(
      Type.Union([oneOf(STP_STATES), Type.Null()], {
        description: "the port's spanning-tree state (BRIDGE-MIB's dot1dStpPortState); null or left out when the device does not say (docs/alerts.md has the events its changes make)",
      }),
    ),
  }),
  (p) => {
    const isUplink = p.isUplink ?? false;
    return {
      portNumber: p.portNumber,
      label: p.label ?? null,
      portType: (p.portType ?? null) as string | null,
      isEnabled: p.isEnabled ?? true,
      isConnected: p.isConnected ?? false,
      isUplink,
      isUplinkActive: isUplink ? (p.isUplinkActive ?? false) : null,
      isTrunkPort: p.isTrunkPort ?? false,
      portSpeedMbps: p.portSpeedMbps ?? null,
      nativeVLANID: p.nativeVLANID ?? null,
      counters: p.counters == null ? null : countersOf(p.counters),
      lldpNeighbor: p.lldpNeighbor ?? null,
      stpState: (p.stpState ?? null) as StpState | null,
    };
  },
);

const UplinkSampleSchema = Type.Decode(
  Type.Object({
    portNumber: portNumber(),
    observedAt: time({ description: 'checked like the report\'s' }),
    latencyMs: optionalNumber(0, 3_600_000),
    jitterMs: optionalNumber(0, 3_600_000),
    lossPercent: optionalNumber(0, 100, { description: 'share of probes lost' }),
    rxBitsPerSecond: optionalNumber(0, 1e15, { description: 'throughput per direction' }),
    txBitsPerSecond: optionalNumber(0, 1e15),
  }),
  (s) => ({
    portNumber: s.portNumber,
    observedAt: canonical(s.observedAt),
    latencyMs: s.latencyMs ?? null,
    jitterMs: s.jitterMs ?? null,
    lossPercent: s.lossPercent ?? null,
    rxBitsPerSecond: s.rxBitsPerSecond ?? null,
    txBitsPerSecond: s.txBitsPerSecond ?? null,
  }),
);

const RadioSchema = Type.Decode(
  Type.Object({
    BSSID: mac({ description: 'unique within a report' }),
    radioBand: oneOf(RADIO_BANDS),
    ssid: optionalText(32),
    isActive: flag(true),
  }),
  (r) => ({ bssid: lower(r.BSSID), radioBand: r.radioBand as string, ssid: r.ssid ?? null, isActive: r.isActive ?? true }),
);

/** A utilization in percent of the report interval, null or left out. */
const utilization = (doc: Doc = {}) => optionalNumber(0, 100, doc);

/** A physical radio (one per band), with its channel and how busy the channel was (issue 32). */
const RadioChannelSchema = Type.Decode(
  Type.Object({
    radioBand: oneOf(RADIO_BANDS, { description: 'unique within a report' }),
    channel: optionalWholeNumber(1, 233, { description: 'the primary channel number' }),
    channelWidthMHz: Type.Optional(Type.Union([oneOf(CHANNEL_WIDTHS_MHZ), Type.Null()])),
    txPowerDbm: optionalNumber(-20, 40, { description: 'transmit power' }),
    noiseFloorDbm: optionalNumber(-130, 0),
    totalUtilization: utilization({
      description: 'percent of the time since the previous report the channel was busy, from anyone; at least `rxUtilization` + `txUtilization` when all three are given',
    }),
    rxUtilization: utilization({ description: 'percent of the time the radio was receiving' }),
    txUtilization: utilization({ description: 'percent of the time the radio was transmitting' }),
    selfUtilization: utilization({ description: 'percent of the time busy with the radio\'s own BSSs (its SSIDs and their clients)' }),
    obssUtilization: utilization({ description: 'percent of the time busy with other BSSs on the channel (neighbouring networks)' }),
    nonWifiUtilization: utilization({ description: 'percent of the time busy with energy that is not Wi-Fi (microwaves, Bluetooth, radar)' }),
  }),
  (r) => ({
    radioBand: r.radioBand as RadioBand,
    channel: r.channel ?? null,
    channelWidthMHz: (r.channelWidthMHz ?? null) as number | null,
    txPowerDbm: r.txPowerDbm ?? null,
    noiseFloorDbm: r.noiseFloorDbm ?? null,
    totalUtilization: r.totalUtilization ?? null,
    rxUtilization: r.rxUtilization ?? null,
    txUtilization: r.txUtilization ?? null,
    selfUtilization: r.selfUtilization ?? null,
    obssUtilization: r.obssUtilization ?? null,
    nonWifiUtilization: r.nonWifiUtilization ?? null,
  }),
);

const ClientSchema = Type.Decode(
  Type.Object({
    macAddress: mac({ description: 'unique within a report' }),
    ip: optionalText(64),
    hostname: optionalText(255, { description: 'what the API calls `clientName`' }),
    isWireless: flag(false),
    signal: optionalWholeNumber(-150, 0, { description: 'dBm; kept for wireless clients only, `null` for wired ones' }),
    vlanID: vlanId({ description: 'names the network\'s VLAN when it has one; an id the network does not have is kept as reported' }),
    ssid: optionalText(32, { description: 'likewise for the network\'s SSIDs' }),
    portNumber: optionalWholeNumber(0, MAX_PORT_NUMBER, { description: 'the switch port of a wired client' }),
    radioBand: Type.Optional(Type.Union([oneOf(RADIO_BANDS), Type.Null()], { description: 'the band the client is connected on; wireless clients only, like `signal`' })),
    channel: optionalWholeNumber(1, MAX_WIFI_CHANNEL, { description: 'the Wi-Fi channel the client is connected on; wireless clients only' }),
    snr: optionalWholeNumber(0, 100, { description: 'signal-to-noise ratio in dB; wireless clients only' }),
    rxRateMbps: optionalNumber(0, 100_000, { description: 'the link rate the device receives from the client at, in Mbit/s; wireless clients only' }),
    txRateMbps: optionalNumber(0, 100_000, { description: 'the link rate the device sends to the client at, in Mbit/s; wireless clients only' }),
    rxBytes: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER, {
      description: 'bytes the device received from the client in its session on this device, wired or wireless; starts again from zero when the client reconnects',
    }),
    txBytes: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER, { description: 'bytes the device sent to the client, likewise' }),
    hwMode: Type.Optional(Type.Union([oneOf(HW_MODES), Type.Null()], { description: 'the client\'s Wi-Fi generation; wireless clients only' })),
  }),
  (c) => {
    const isWireless = c.isWireless ?? false;
    // radio metrics mean nothing on a wire
    const radio = <T>(value: T | null | undefined): T | null => (isWireless ? (value ?? null) : null);
    return {
      macAddress: lower(c.macAddress),
      ip: c.ip ?? null,
      hostname: c.hostname ?? null,
      isWireless,
      // dBm means nothing on a wire
      signal: isWireless ? (c.signal ?? null) : null,
      vlanID: c.vlanID ?? null,
      ssid: c.ssid ?? null,
      portNumber: c.portNumber ?? null,
      radioBand: radio(c.radioBand as string | null | undefined),
      channel: radio(c.channel),
      snr: radio(c.snr),
      rxRateMbps: radio(c.rxRateMbps),
      txRateMbps: radio(c.txRateMbps),
      rxBytes: c.rxBytes ?? null,
      txBytes: c.txBytes ?? null,
      hwMode: radio(c.hwMode as string | null | undefined),
    };
  },
);

const MacTableEntrySchema = Type.Decode(
  Type.Object({
    macAddress: mac({ description: 'unique within a report per `vlanID`' }),
    vlanID: vlanId({ description: 'the VLAN (802.1Q) the address was learned in; null for a bridge that has no VLANs' }),
    portNumber: portNumber({ description: 'the port the address was learned on, numbered as in `interfaces`' }),
  }),
  (e) => ({ macAddress: lower(e.macAddress), vlanID: e.vlanID ?? null, portNumber: e.portNumber }),
);

/** An outlet of a PDU as it is now (issue 32). */
const OutletSchema = Type.Decode(
  Type.Object({
    outletNumber: wholeNumber(1, MAX_OUTLETS, { description: 'unique within a report' }),
    label: optionalText(100),
    isOn: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'whether the outlet is switched on; null or left out when the PDU does not say' })),
    currentAmps: optionalNumber(0, 1000, { description: 'the current the outlet draws now, in amperes' }),
    powerWatts: optionalNumber(0, 1_000_000, { description: 'the real power the outlet delivers now, in watts' }),
    voltageVolts: optionalNumber(0, 1000, { description: 'the voltage at the outlet now, in volts' }),
    energyKWh: optionalNumber(0, 1e12, {
      description: 'the energy the outlet delivered since its counter was last reset, in kWh; a value lower than the previous report\'s is a reset',
    }),
  }),
  (o) => ({
    outletNumber: o.outletNumber,
    label: o.label ?? null,
    isOn: o.isOn ?? null,
    currentAmps: o.currentAmps ?? null,
    powerWatts: o.powerWatts ?? null,
    voltageVolts: o.voltageVolts ?? null,
    energyKWh: o.energyKWh ?? null,
  }),
);

/** Meter's TrafficDirection of an IDS/IPS detection. */
export const TRAFFIC_DIRECTIONS = ['RX', 'TX'] as const;
/** The most IDS/IPS detections one report may carry. */
export const MAX_IDS_DETECTIONS = 1000;
/** The most foreign BSSIDs one report may carry. */
export const MAX_FOREIGN_BSSIDS = 512;

/** An intrusion detection (or prevention) match a controller saw (issue 32). */
const IdsDetectionSchema = Type.Decode(
  Type.Object({
    observedAt: time({ description: 'when the traffic matched; checked like the report\'s' }),
    srcIP: ipAddress({ description: 'the source address of the matching traffic' }),
    dstIP: ipAddress({ description: 'its destination address' }),
    protocol: string(16, { pattern: '^[A-Za-z0-9_-]+$', title: 'protocol name', errorMessage: 'must be a protocol name like TCP, UDP or ICMP', description: 'the IP protocol, e.g. `TCP`, `UDP`, `ICMP` (kept upper-case)' }),
    srcPort: optionalWholeNumber(0, MAX_PORT_NUMBER, { description: 'the source port (TCP, UDP); null or left out for other protocols' }),
    dstPort: optionalWholeNumber(0, MAX_PORT_NUMBER, { description: 'the destination port, likewise' }),
    direction: oneOf(TRAFFIC_DIRECTIONS, { description: '`RX`: traffic the controller received from its WAN (inbound); `TX`: traffic it sent out (outbound)' }),
    signature: optionalText(255, { description: 'the rule that matched, e.g. `ET SCAN Nmap Scripting Engine User-Agent`' }),
  }),
  (d) => ({
    observedAt: canonical(d.observedAt),
    srcIP: d.srcIP.toLowerCase(),
    dstIP: d.dstIP.toLowerCase(),
    protocol: d.protocol.toUpperCase(),
    srcPort: d.srcPort ?? null,
    dstPort: d.dstPort ?? null,
    direction: d.direction as (typeof TRAFFIC_DIRECTIONS)[number],
    signature: d.signature ?? null,
  }),
);

/** A BSSID an access point hears that is not its own (issue 32): where rogue and honeypot access points come from. */
const ForeignBssidSchema = Type.Decode(
  Type.Object({
    BSSID: mac({ description: 'unique within a report' }),
    ssid: optionalText(32, { description: 'the SSID it broadcasts; null or left out for a hidden one' }),
    rssi: wholeNumber(-150, 0, { description: 'how strongly the access point hears it, in dBm' }),
    channel: optionalWholeNumber(1, MAX_WIFI_CHANNEL, { description: 'the channel it was heard on' }),
  }),
  (b) => ({ bssid: lower(b.BSSID), ssid: b.ssid ?? null, rssi: b.rssi, channel: b.channel ?? null }),
);

/** `details` of an event: any JSON object (nesting and size are checked by report.parse.ts). */
const DetailsSchema = Type.Unsafe<Record<string, unknown>>({ type: 'object', title: 'JSON object', maxNesting: MAX_FREE_FORM_NESTING, maxBytes: MAX_DETAILS_BYTES });

const EventSchema = Type.Decode(
  Type.Object({
    type: string(64, {
      pattern: '^[A-Z][A-Z0-9_]{0,63}$',
      title: 'upper-case name',
      errorMessage: 'must be an upper-case name of letters, digits and underscores, e.g. DEVICE_BOOT',
      reserved: [...NETGRAPH_EVENT_TYPES],
      description: 'an open set of `A-Z`, `0-9` and `_`; `DEVICE_ONLINE` and `DEVICE_OFFLINE` are netgraph\'s own and refused',
    }),
    observedAt: time({ description: 'checked like the report\'s' }),
    details: Type.Optional(Type.Union([DetailsSchema, Type.Null()], { description: 'kept as JSON text' })),
  }),
  (e) => ({ type: e.type, observedAt: canonical(e.observedAt), details: e.details == null ? null : JSON.stringify(e.details) }),
);


const PollSchema = Type.Decode(
  Type.Object({
    durationMs: Type.Number({ minimum: 0, maximum: 3_600_000, description: 'how long the poll took, in milliseconds' }),
    error: optionalText(MAX_POLL_ERROR, {
      description: 'why the poll failed (the device did not answer, refused the credentials); null or left out when it answered. A report with an error carries nothing else of the device: it neither brings the device online nor keeps it online',
    }),
  }),
  (p) => ({ durationMs: p.durationMs, error: p.error ?? null }),
);

/** One connection event of a wireless client (issue 32). */
const ConnectionEventSchema = Type.Decode(
  Type.Object({
    type: oneOf(CLIENT_CONNECTION_EVENT_TYPES),
    observedAt: time({ description: 'when it happened; checked like the report\'s' }),
    reason: optionalText(255, { description: 'why, in the sender\'s words: a failure\'s detail (e.g. `no DHCP offer`) or a disassociation\'s reason code' }),
  }),
  (e) => ({ type: e.type as ClientConnectionEventType, observedAt: canonical(e.observedAt), reason: e.reason ?? null }),
);

/** A wireless client's connection events since the device's previous report (issue 32). */
const ClientConnectionEventsSchema = Type.Decode(
  Type.Object({
    macAddress: mac({ description: 'the client; unique within a report' }),
    events: Type.Array(ConnectionEventSchema, {
      maxItems: MAX_CONNECTION_EVENTS_PER_CLIENT,
      description: `its events since the previous report, at most ${MAX_CONNECTION_EVENTS_PER_CLIENT}`,
    }),
  }),
  (c) => ({ macAddress: lower(c.macAddress), events: c.events }),
);

/** One report: one device at one moment. Only `reportId`, `serialNumber` and `observedAt` are required. */
export const ReportSchema = Type.Decode(
  Type.Object({
    reportId: text(128, { description: 'the sender\'s id of this report (a UUID is a good choice); unique per company. A report whose id is stored already is a duplicate.' }),
    serialNumber: text(100, { description: 'a hardware device of the key\'s company' }),
    observedAt: time({
      description: 'when the device saw what it reports; at most 5 minutes in the future, no older than `TELEMETRY_RAW_RETENTION_HOURS`',
    }),
    uptimeSeconds: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER, {
      description: 'seconds since the device booted; the device\'s uptime is the value of its latest report',
    }),
    macAddress: Type.Optional(Type.Union([mac(), Type.Null()], { description: 'the device\'s own MAC address' })),
    cpuPercent: optionalNumber(0, 100, { description: 'CPU load; left out leaves the stored value as it was, null clears it' }),
    memoryUsedBytes: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER, { description: 'memory in use; at most `memoryTotalBytes` when both are given; left out or null as `cpuPercent`' }),
    memoryTotalBytes: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER, { description: 'memory installed; left out or null as `cpuPercent`' }),
    temperatureCelsius: optionalNumber(-50, 150, { description: 'the device\'s temperature in °C (a PDU\'s sensor, say), a sample of its temperature series' }),
    interfaces: section(PortSchema, 1024, { description: 'the device\'s ports as they are now; replaces the ports of an earlier report as a set' }),
    uplinkSamples: section(UplinkSampleSchema, 1000, { description: 'measurements of an uplink port, each at its own `observedAt`' }),
    radios: section(RadioSchema, 64, { description: 'the device\'s radios as they are now, one element per BSSID (an SSID on a band); replaces an earlier set' }),
    radioChannels: section(RadioChannelSchema, RADIO_BANDS.length, {
      description: 'an access point\'s physical radios, one element per band: channel, width, power and utilization over the time since the previous report; each element is one sample of the radio\'s series',
    }),
    clients: section(ClientSchema, MAX_CLIENTS, { description: 'the **complete** set of clients the device sees at `observedAt`; `[]` means none' }),
    clientConnectionEvents: section(ClientConnectionEventsSchema, MAX_CONNECTION_EVENT_CLIENTS, {
      description:
        'an access point\'s wireless clients\' connection events (`CONNECTED`, `DHCP_OK`, `DISASSOCIATED`, ...) since its previous report, one element per client; each event is kept once (`EVENT_RETENTION_DAYS`), in the network the device is in',
    }),
    events: section(EventSchema, 100, { description: 'the device\'s own events, each at its own `observedAt`' }),
    dnsRequests: optionalWholeNumber(0, Number.MAX_SAFE_INTEGER, {
      description: 'a controller\'s DNS requests received since it booted (cumulative: a lower value than the previous report\'s, or a lower `uptimeSeconds`, is a reboot)',
    }),
    macTable: section(MacTableEntrySchema, MAX_MAC_TABLE_ENTRIES, {
      description: 'a switch\'s MAC forwarding table: the **complete** table at `observedAt` (learned entries), replacing the earlier one as a set; `[]` means empty',
    }),
    outlets: section(OutletSchema, MAX_OUTLETS, {
      description: 'a PDU\'s outlets as they are now, replacing the earlier set; each outlet\'s readings are samples of its series; `[]` means none',
    }),
    idsDetections: section(IdsDetectionSchema, MAX_IDS_DETECTIONS, {
      description: 'a controller\'s IDS/IPS matches since its previous report, each at its own `observedAt`; an IDS or IPS event by the network\'s IDS/IPS mode when ingested (docs/security.md)',
    }),
    foreignBSSIDs: section(ForeignBssidSchema, MAX_FOREIGN_BSSIDS, {
      description: 'an access point\'s scan: the BSSIDs it hears at `observedAt` that are not its own; rogue and honeypot access points come from them (docs/security.md)',
    }),
    poll: Type.Optional(
      Type.Union([PollSchema, Type.Null()], {
        description: 'a collector\'s poll of the device at `observedAt` (the SNMP collector sends it); the API answers it as the device\'s `source`',
      }),
    ),
  }),
  (r) => ({
    reportId: r.reportId,
    serialNumber: r.serialNumber,
    observedAt: canonical(r.observedAt),
    uptimeSeconds: r.uptimeSeconds,
    macAddress: r.macAddress == null ? r.macAddress : lower(r.macAddress),
    cpuPercent: r.cpuPercent,
    memoryUsedBytes: r.memoryUsedBytes,
    memoryTotalBytes: r.memoryTotalBytes,
    interfaces: r.interfaces,
    uplinkSamples: r.uplinkSamples,
    radios: r.radios,
    radioChannels: r.radioChannels,
    dnsRequests: r.dnsRequests,
    clients: r.clients,
    events: r.events,
    clientConnectionEvents: r.clientConnectionEvents,
    macTable: r.macTable,
    temperatureCelsius: r.temperatureCelsius,
    outlets: r.outlets,
    idsDetections: r.idsDetections,
    foreignBSSIDs: r.foreignBSSIDs,
    poll: r.poll ?? undefined,
  }),
);

/**
 * What identifies an element of a section: a report may list each once. The
 * second is refused at `field`, saying `repeats <key>`.
 */
export const SECTION_IDENTITY = {
  interfaces: { field: 'portNumber', key: (p: PortReport) => String(p.portNumber) },
  radios: { field: 'BSSID', key: (r: RadioReport) => r.bssid },
  radioChannels: { field: 'radioBand', key: (r: RadioChannelReport) => r.radioBand },
  clients: { field: 'macAddress', key: (c: ClientReport) => c.macAddress },
  clientConnectionEvents: { field: 'macAddress', key: (c: ClientConnectionEventsReport) => c.macAddress },
  macTable: { field: 'macAddress', key: (e: MacTableEntryReport) => `${e.macAddress} in VLAN ${e.vlanID ?? 'none'}` },
  outlets: { field: 'outletNumber', key: (o: OutletReport) => `outlet ${o.outletNumber}` },
  foreignBSSIDs: { field: 'BSSID', key: (b: ForeignBssidReport) => b.bssid },
} as const;

// ---------------------------------------------------------------------------
// The types. A sender builds a `Report`; ingest works with a `DeviceReport`.

/** A report as a sender builds it (the body's `reports[i]`). */
export type Report = Static<typeof ReportSchema>;
/** A port as sent. */
export type PortInput = NonNullable<Report['interfaces']>[number];
/** A port's traffic counters as sent, cumulative since the device booted. */
/** An LLDP neighbour as a sender sends it. */
export type LldpNeighborInput = NonNullable<PortInput['lldpNeighbor']>;
/** What ingest keeps of a port's LLDP neighbour. */
export type LldpNeighborReport = NonNullable<PortReport['lldpNeighbor']>;
export type CountersInput = NonNullable<PortInput['counters']>;
/** An uplink measurement as sent. */
export type UplinkSampleInput = NonNullable<Report['uplinkSamples']>[number];
/** A BSSID (a band of a radio broadcasting one SSID) as sent. */
export type RadioInput = NonNullable<Report['radios']>[number];
/** A physical radio (one band) with its channel and utilization, as sent. */
export type RadioChannelInput = NonNullable<Report['radioChannels']>[number];
/** A client the device sees, as sent. */
export type ClientInput = NonNullable<Report['clients']>[number];
/** An entry of a switch's MAC forwarding table, as sent. */
export type MacTableEntryInput = NonNullable<Report['macTable']>[number];
/** A PDU's outlet, as sent. */
export type OutletInput = NonNullable<Report['outlets']>[number];
/** A wireless client's connection events, as sent. */
export type ClientConnectionEventsInput = NonNullable<Report['clientConnectionEvents']>[number];
/** One connection event of a wireless client, as sent. */
export type ClientConnectionEventInput = ClientConnectionEventsInput['events'][number];
/** A device's own event, as sent. */
export type EventInput = NonNullable<Report['events']>[number];
/** An IDS/IPS detection as a sender builds it. */
export type IdsDetectionInput = NonNullable<Report['idsDetections']>[number];
/** A foreign BSSID as a sender builds it. */
export type ForeignBssidInput = NonNullable<Report['foreignBSSIDs']>[number];

/** A valid report, parsed. A section that is undefined was absent: it leaves the device's earlier state as it was. */
export type DeviceReport = StaticDecode<typeof ReportSchema>;
/** One port of a parsed report; `isUplinkActive` is null on ports that are not uplinks. */
export type PortReport = NonNullable<DeviceReport['interfaces']>[number];
/** Traffic counters of a parsed port. */
export type Counters = StaticDecode<typeof CountersSchema>;
/** An uplink sample of a parsed report, at its canonical time. */
export type UplinkSampleReport = NonNullable<DeviceReport['uplinkSamples']>[number];
/** A radio of a parsed report; `bssid` lowercase. */
export type RadioReport = NonNullable<DeviceReport['radios']>[number];
/** A physical radio of a parsed report; absent fields null. */
export type RadioChannelReport = NonNullable<DeviceReport['radioChannels']>[number];
/** A client of a parsed report; `signal` null for wired clients. */
export type ClientReport = NonNullable<DeviceReport['clients']>[number];
/** A MAC table entry of a parsed report. */
export type MacTableEntryReport = NonNullable<DeviceReport['macTable']>[number];
/** An outlet of a parsed report; what was left out is null. */
export type OutletReport = NonNullable<DeviceReport['outlets']>[number];
/** A collector's poll of a parsed report; `error` null when the device answered. */
export type PollReport = NonNullable<DeviceReport['poll']>;
/** A client's connection events of a parsed report; MAC lowercase, times canonical, `reason` null when left out. */
export type ClientConnectionEventsReport = NonNullable<DeviceReport['clientConnectionEvents']>[number];
/** One of CLIENT_CONNECTION_EVENT_TYPES. */
export type ClientConnectionEventType = (typeof CLIENT_CONNECTION_EVENT_TYPES)[number];
/** An event of a parsed report; `details` as JSON text, or null. */
export type EventReport = NonNullable<DeviceReport['events']>[number];
/** An IDS/IPS detection as ingest keeps it (protocol upper-case, addresses lower-case). */
export type IdsDetectionReport = NonNullable<DeviceReport['idsDetections']>[number];
/** A foreign BSSID as ingest keeps it (lower-case `bssid`). */
export type ForeignBssidReport = NonNullable<DeviceReport['foreignBSSIDs']>[number];
