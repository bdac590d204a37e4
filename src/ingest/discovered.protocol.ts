import { isIP } from 'node:net';
import { AppError } from '../kernel/errors.js';
import { isSerialNumber } from '../kernel/rules.js';

/**
 * The body of POST /api/v1/collector/discovered (docs/collector.md#discovery):
 * `{"devices": [{address, snmpVersion, sysName, sysDescr, sysObjectID, serialNumber}]}`,
 * 1 to MAX_DISCOVERED_PER_REQUEST agents a collector's sweep found. Checked
 * strictly: an unknown field, a wrong type or a value out of bounds refuses
 * the whole request, every problem named at its path.
 */

/** One agent a sweep found, as a collector posts it (vendor and model are the server's to read from sysObjectID). */
export interface FoundAgent {
  /** The IPv4 or IPv6 address it answered at. */
  readonly address: string;
  /** The SNMP version of the credentials it answered: 2c or 3. */
  readonly snmpVersion: '2c' | '3';
  readonly sysName: string | null;
  readonly sysDescr: string | null;
  /** Dotted, no leading dot. */
  readonly sysObjectID: string | null;
  /** ENTITY-MIB's chassis serial, else its first MAC address (as the collector reports the device). */
  readonly serialNumber: string | null;
}

/** Most agents per request; a collector sends a larger sweep's in several. */
export const MAX_DISCOVERED_PER_REQUEST = 1000;
/** Most characters of sysName and sysDescr (a collector cuts longer ones). */
export const MAX_SYS_NAME = 255;
export const MAX_SYS_DESCR = 1024;

const FIELDS = new Set(['address', 'snmpVersion', 'sysName', 'sysDescr', 'sysObjectID', 'serialNumber']);
const OID = /^[0-9]+(?:\.[0-9]+){1,127}$/;

/** The agents of a body; BAD_REQUEST naming every problem (at most ten) otherwise. */
export function readFoundAgents(body: unknown): FoundAgent[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad(['the body must be a JSON object: {"devices": [...]}']);
  const { devices, ...rest } = body as { devices?: unknown };
  const problems: string[] = Object.keys(rest).map((key) => `${JSON.stringify(key)}: unknown field (the body holds "devices" only)`);
  if (!Array.isArray(devices)) throw bad([...problems, 'the body has no "devices" list']);
  if (devices.length === 0 || devices.length > MAX_DISCOVERED_PER_REQUEST) {
    throw bad([...problems, `"devices" holds ${devices.length}; send 1 to ${MAX_DISCOVERED_PER_REQUEST} per request`]);
  }
  const agents = devices.map((device, i) => readAgent(device, `devices[${i}]`, problems));
  const seen = new Set<string>();
  agents.forEach((a, i) => {
    if (seen.has(a.address)) problems.push(`devices[${i}].address: repeats ${a.address}`);
    seen.add(a.address);
  });
  if (problems.length > 0) throw bad(problems);
  return agents;
}

function readAgent(value: unknown, at: string, problems: string[]): FoundAgent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${at}: must be an object`);
    return { address: '', snmpVersion: '2c', sysName: null, sysDescr: null, sysObjectID: null, serialNumber: null };
  }
  const device = value as Record<string, unknown>;
  for (const key of Object.keys(device)) if (!FIELDS.has(key)) problems.push(`${at}.${key}: unknown field`);
  const fail = <T>(field: string, message: string, placeholder: T): T => {
    problems.push(`${at}.${field}: ${message}`);
    return placeholder;
  };
  const optionalText = (field: string, max: number): string | null => {
    const v = device[field];
    if (v === undefined || v === null) return null;
    return typeof v === 'string' && v.length <= max ? v : fail(field, `must be null or a string of at most ${max} characters`, null);
  };
  const address = typeof device.address === 'string' && isIP(device.address) !== 0 ? device.address : fail('address', 'must be an IPv4 or IPv6 address', '');
  const snmpVersion = device.snmpVersion === '2c' || device.snmpVersion === '3' ? device.snmpVersion : fail('snmpVersion', 'must be "2c" or "3"', '2c' as const);
  const sysObjectID = optionalText('sysObjectID', 600);
  const serialNumber = optionalText('serialNumber', 64);
  return {
    address,
    snmpVersion,
    sysName: optionalText('sysName', MAX_SYS_NAME),
    sysDescr: optionalText('sysDescr', MAX_SYS_DESCR),
    sysObjectID: sysObjectID === null || OID.test(sysObjectID) ? sysObjectID : fail('sysObjectID', 'must be a dotted OID such as 1.3.6.1.4.1.8072.3.2.10', null),
    serialNumber: serialNumber === null || isSerialNumber(serialNumber) ? serialNumber : fail('serialNumber', 'must be a serial number: letters, digits, ".", "_" and "-", 1 to 64 characters', null),
  };
}

function bad(problems: readonly string[]): AppError {
  const shown = problems.slice(0, 10);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
  return new AppError('BAD_REQUEST', `The discovered devices were refused: ${shown.join('; ')}${more}.`);
}
