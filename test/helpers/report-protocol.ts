import { isIP } from 'node:net';
/**
 * A small, independent checker of the report protocol of issue 15
 * (docs/reports.md), written from the contract, not from the simulator, so
 * that the simulator's reports are checked against the protocol itself.
 */

/** One way a report breaks the protocol, at its path (`reports[0].clients[2].signal`). */
export interface ProtocolProblem {
  readonly path: string;
  readonly message: string;
}

type Json = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EVENT_TYPE = /^[A-Z][A-Z0-9_]*$/;
const PORT_TYPES = ['COPPER', 'SFP', 'CELLULAR', 'WIRELESS'];
const BANDS = ['BAND_2_4G', 'BAND_5G', 'BAND_6G'];
const REPORT_KEYS = ['reportId', 'serialNumber', 'observedAt', 'uptimeSeconds', 'macAddress', 'interfaces', 'uplinkSamples', 'radios', 'clients', 'events', 'macTable', 'cpuPercent', 'memoryUsedBytes', 'memoryTotalBytes', 'radioChannels', 'dnsRequests', 'clientConnectionEvents'];
/** The PDU fields of issue 32. */
const PDU_KEYS = ['temperatureCelsius', 'outlets'];
const SECURITY_KEYS = ['idsDetections', 'foreignBSSIDs'];
const CONNECTION_EVENT_TYPES = ['ARP_FAILED', 'ARP_LATE', 'CONNECTED', 'DHCP_FAILED', 'DHCP_OK', 'DISASSOCIATED', 'FAILED'];
const COUNTERS = ['rxBytes', 'txBytes', 'rxPackets', 'txPackets', 'rxErrors', 'txErrors'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isVlan = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 4094;

function checker(problems: ProtocolProblem[]) {
  const rule = (ok: boolean, path: string, message: string) => {
    if (!ok) problems.push({ path, message });
  };
  const list = (value: unknown, path: string, each: (item: Json, path: string) => void) => {
    if (value === undefined) return;
    if (!Array.isArray(value)) return rule(false, path, 'must be a list');
    value.forEach((item, i) => (isObject(item) ? each(item, `${path}[${i}]`) : rule(false, `${path}[${i}]`, 'must be an object')));
  };
  return { rule, list };
}

/** Every problem of one report; [] when it follows the protocol. */
export function checkReport(report: unknown, path = 'report'): ProtocolProblem[] {
  const problems: ProtocolProblem[] = [];
  const { rule, list } = checker(problems);
  if (!isObject(report)) return [{ path, message: 'must be an object' }];
  for (const key of Object.keys(report)) rule(REPORT_KEYS.includes(key) || PDU_KEYS.includes(key) || SECURITY_KEYS.includes(key), `${path}.${key}`, 'is not a field of the protocol');
  rule(typeof report.reportId === 'string' && UUID.test(report.reportId), `${path}.reportId`, 'must be a UUID');
  rule(typeof report.serialNumber === 'string' && report.serialNumber !== '', `${path}.serialNumber`, 'is required');
  rule(typeof report.observedAt === 'string' && TIME.test(report.observedAt), `${path}.observedAt`, 'must be an RFC 3339 time');
  if (report.uptimeSeconds !== undefined) rule(isCount(report.uptimeSeconds), `${path}.uptimeSeconds`, 'must be a whole number ≥ 0');
  if (report.macAddress !== undefined) rule(typeof report.macAddress === 'string' && MAC.test(report.macAddress), `${path}.macAddress`, 'must be a lowercase MAC');
  if (report.cpuPercent !== undefined) rule(typeof report.cpuPercent === 'number' && report.cpuPercent >= 0 && report.cpuPercent <= 100, `${path}.cpuPercent`, 'must be 0 to 100');
  for (const f of ['memoryUsedBytes', 'memoryTotalBytes']) if (report[f] !== undefined) rule(isCount(report[f]), `${path}.${f}`, 'must be a whole number ≥ 0');
  if (isCount(report.memoryUsedBytes) && isCount(report.memoryTotalBytes)) rule((report.memoryUsedBytes as number) <= (report.memoryTotalBytes as number), `${path}.memoryUsedBytes`, 'must not exceed memoryTotalBytes');
  list(report.interfaces, `${path}.interfaces`, (p, at) => {
    rule(Number.isInteger(p.portNumber) && (p.portNumber as number) >= 1, `${at}.portNumber`, 'must be a whole number ≥ 1');
    rule(typeof p.label === 'string', `${at}.label`, 'must be a string');
    rule(PORT_TYPES.includes(p.portType as string), `${at}.portType`, `must be one of ${PORT_TYPES.join(', ')}`);
    for (const flag of ['isEnabled', 'isConnected', 'isUplink', 'isUplinkActive', 'isTrunkPort']) rule(typeof p[flag] === 'boolean', `${at}.${flag}`, 'must be a boolean');
    rule(isCount(p.portSpeedMbps), `${at}.portSpeedMbps`, 'must be a whole number ≥ 0');
    rule(isVlan(p.nativeVLANID), `${at}.nativeVLANID`, 'must be 1 to 4094');
    const counters = isObject(p.counters) ? p.counters : {};
    for (const c of COUNTERS) rule(isCount(counters[c]), `${at}.counters.${c}`, 'must be a whole number ≥ 0');
    if (isObject(p.lldpNeighbor)) {
      const n = p.lldpNeighbor;
      rule(typeof n.chassisID === 'string' && n.chassisID !== '' && n.chassisID.length <= 255, `${at}.lldpNeighbor.chassisID`, 'must be a string of 1 to 255');
      for (const f of ['portID', 'portDescription', 'systemName']) rule(n[f] === null || (typeof n[f] === 'string' && (n[f] as string).length <= 255), `${at}.lldpNeighbor.${f}`, 'must be a string ≤ 255 or null');
    } else {
      rule(p.lldpNeighbor === undefined || p.lldpNeighbor === null, `${at}.lldpNeighbor`, 'must be an object or null');
    }
  });
  list(report.idsDetections, `${path}.idsDetections`, (d, at) => {
    rule(typeof d.observedAt === 'string' && TIME.test(d.observedAt), `${at}.observedAt`, 'must be an RFC 3339 time');
    for (const f of ['srcIP', 'dstIP']) rule(typeof d[f] === 'string' && isIP(d[f] as string) !== 0, `${at}.${f}`, 'must be an IP address');
    rule(typeof d.protocol === 'string' && /^[A-Za-z0-9_-]{1,16}$/.test(d.protocol), `${at}.protocol`, 'must be a protocol name');
    for (const f of ['srcPort', 'dstPort']) rule(d[f] === null || (Number.isInteger(d[f]) && (d[f] as number) >= 0 && (d[f] as number) <= 65535), `${at}.${f}`, 'must be 0 to 65535 or null');
    rule(d.direction === 'RX' || d.direction === 'TX', `${at}.direction`, 'must be RX or TX');
  });
  list(report.foreignBSSIDs, `${path}.foreignBSSIDs`, (b, at) => {
    rule(typeof b.BSSID === 'string' && MAC.test(b.BSSID), `${at}.BSSID`, 'must be a lowercase MAC');
    rule(b.ssid === null || (typeof b.ssid === 'string' && b.ssid.length <= 32), `${at}.ssid`, 'must be a string ≤ 32 or null');
    rule(Number.isInteger(b.rssi) && (b.rssi as number) >= -150 && (b.rssi as number) <= 0, `${at}.rssi`, 'must be -150 to 0');
  });
  list(report.uplinkSamples, `${path}.uplinkSamples`, (s, at) => {
    rule(Number.isInteger(s.portNumber), `${at}.portNumber`, 'must be a whole number');
    rule(typeof s.observedAt === 'string' && TIME.test(s.observedAt), `${at}.observedAt`, 'must be an RFC 3339 time');
    for (const f of ['latencyMs', 'jitterMs']) rule(s[f] === null || (typeof s[f] === 'number' && (s[f] as number) >= 0), `${at}.${f}`, 'must be a number ≥ 0 or null');
    rule(typeof s.lossPercent === 'number' && s.lossPercent >= 0 && s.lossPercent <= 100, `${at}.lossPercent`, 'must be 0 to 100');
    for (const f of ['rxBitsPerSecond', 'txBitsPerSecond']) rule(isCount(s[f]), `${at}.${f}`, 'must be a whole number ≥ 0');
  });
  list(report.radios, `${path}.radios`, (r, at) => {
    rule(typeof r.BSSID === 'string' && MAC.test(r.BSSID), `${at}.BSSID`, 'must be a lowercase MAC');
    rule(BANDS.includes(r.radioBand as string), `${at}.radioBand`, `must be one of ${BANDS.join(', ')}`);
    rule(typeof r.ssid === 'string', `${at}.ssid`, 'must be a string');
    rule(typeof r.isActive === 'boolean', `${at}.isActive`, 'must be a boolean');
  });
  const bands = new Set<unknown>();
  list(report.radioChannels, `${path}.radioChannels`, (r, at) => {
    rule(BANDS.includes(r.radioBand as string) && !bands.has(r.radioBand), `${at}.radioBand`, `must be one of ${BANDS.join(', ')}, once per report`);
    bands.add(r.radioBand);
    rule(Number.isInteger(r.channel) && (r.channel as number) >= 1 && (r.channel as number) <= 233, `${at}.channel`, 'must be a channel number 1 to 233');
    rule([20, 40, 80, 160, 320].includes(r.channelWidthMHz as number), `${at}.channelWidthMHz`, 'must be 20, 40, 80, 160 or 320');
    rule(typeof r.txPowerDbm === 'number' && typeof r.noiseFloorDbm === 'number' && r.noiseFloorDbm < 0, `${at}.txPowerDbm`, 'power and noise floor must be dBm');
    const percents = ['totalUtilization', 'rxUtilization', 'txUtilization', 'selfUtilization', 'obssUtilization', 'nonWifiUtilization'];
    for (const f of percents) rule(typeof r[f] === 'number' && (r[f] as number) >= 0 && (r[f] as number) <= 100, `${at}.${f}`, 'must be 0 to 100');
    rule((r.rxUtilization as number) + (r.txUtilization as number) <= (r.totalUtilization as number), `${at}.totalUtilization`, 'must be at least rx + tx');
  });
  if (report.dnsRequests !== undefined) rule(isCount(report.dnsRequests), `${path}.dnsRequests`, 'must be a whole number ≥ 0');
  list(report.clients, `${path}.clients`, (c, at) => {
    rule(typeof c.macAddress === 'string' && MAC.test(c.macAddress), `${at}.macAddress`, 'must be a lowercase MAC');
    rule(c.ip === null || typeof c.ip === 'string', `${at}.ip`, 'must be a string or null');
    rule(c.hostname === null || typeof c.hostname === 'string', `${at}.hostname`, 'must be a string or null');
    rule(typeof c.isWireless === 'boolean', `${at}.isWireless`, 'must be a boolean');
    const signalOk = c.isWireless ? Number.isInteger(c.signal) && (c.signal as number) >= -90 && (c.signal as number) <= -30 : c.signal === null;
    rule(signalOk, `${at}.signal`, 'must be dBm from -90 to -30 for a wireless client, null for a wired one');
    rule(c.vlanID === null || isVlan(c.vlanID), `${at}.vlanID`, 'must be 1 to 4094');
    rule(c.ssid === null || typeof c.ssid === 'string', `${at}.ssid`, 'must be a string or null');
    rule(c.portNumber === null || Number.isInteger(c.portNumber), `${at}.portNumber`, 'must be a whole number or null');
  });
  list(report.clientConnectionEvents, `${path}.clientConnectionEvents`, (c, at) => {
    rule(typeof c.macAddress === 'string' && MAC.test(c.macAddress), `${at}.macAddress`, 'must be a lowercase MAC');
    list(c.events, `${at}.events`, (e, eventAt) => {
      rule(CONNECTION_EVENT_TYPES.includes(e.type as string), `${eventAt}.type`, `must be one of ${CONNECTION_EVENT_TYPES.join(', ')}`);
      rule(typeof e.observedAt === 'string' && TIME.test(e.observedAt) && e.observedAt <= (report.observedAt as string), `${eventAt}.observedAt`, 'must be an RFC 3339 time, not after the report\'s');
      rule(e.reason === null || (typeof e.reason === 'string' && e.reason.length <= 255), `${eventAt}.reason`, 'must be a string ≤ 255 or null');
    });
    rule(Array.isArray(c.events) && c.events.length >= 1 && c.events.length <= 32, `${at}.events`, 'must hold 1 to 32 events');
  });
  list(report.events, `${path}.events`, (e, at) => {
    rule(typeof e.type === 'string' && EVENT_TYPE.test(e.type), `${at}.type`, 'must be an upper-case name');
    rule(typeof e.observedAt === 'string' && TIME.test(e.observedAt), `${at}.observedAt`, 'must be an RFC 3339 time');
    rule(e.details === undefined || isObject(e.details), `${at}.details`, 'must be an object');
  });
  const macEntries = new Set<string>();
  list(report.macTable, `${path}.macTable`, (m, at) => {
    rule(typeof m.macAddress === 'string' && MAC.test(m.macAddress), `${at}.macAddress`, 'must be a lowercase MAC');
    rule(m.vlanID === null || isVlan(m.vlanID), `${at}.vlanID`, 'must be 1 to 4094 or null');
    rule(Number.isInteger(m.portNumber) && (m.portNumber as number) >= 0 && (m.portNumber as number) <= 65_535, `${at}.portNumber`, 'must be a whole number 0 to 65535');
    const key = `${String(m.macAddress)}/${String(m.vlanID)}`;
    rule(!macEntries.has(key), `${at}.macAddress`, 'repeats an address in its VLAN');
    macEntries.add(key);
  });
  checkPduFields(report, path, checker(problems));
  return problems;
}

/** A device's temperature and a PDU's outlets: each outlet once, numbered 1 to 1024, readings numbers ≥ 0 or null. */
function checkPduFields(report: Json, path: string, { rule, list }: ReturnType<typeof checker>): void {
  const t = report.temperatureCelsius;
  if (t !== undefined) rule(t === null || (typeof t === 'number' && t >= -50 && t <= 150), `${path}.temperatureCelsius`, 'must be -50 to 150 or null');
  const outlets = new Set<unknown>();
  list(report.outlets, `${path}.outlets`, (o, at) => {
    rule(Number.isInteger(o.outletNumber) && (o.outletNumber as number) >= 1 && (o.outletNumber as number) <= 1024, `${at}.outletNumber`, 'must be 1 to 1024');
    rule(!outlets.has(o.outletNumber), `${at}.outletNumber`, 'repeats an outlet');
    outlets.add(o.outletNumber);
    rule(o.label === undefined || o.label === null || typeof o.label === 'string', `${at}.label`, 'must be a string or null');
    rule(o.isOn === undefined || o.isOn === null || typeof o.isOn === 'boolean', `${at}.isOn`, 'must be a boolean or null');
    for (const f of ['currentAmps', 'powerWatts', 'voltageVolts', 'energyKWh']) rule(o[f] === undefined || o[f] === null || (typeof o[f] === 'number' && (o[f] as number) >= 0), `${at}.${f}`, 'must be a number ≥ 0 or null');
  });
}
