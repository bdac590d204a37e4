import { isIP } from 'node:net';
import { AppError } from '../kernel/errors.js';
import { parseJsonText } from '../kernel/json-input.js';
import { SNMP_AUTH_PROTOCOLS, SNMP_PRIV_PROTOCOLS } from './snmp.client.js';
import type { SnmpCredentials } from './snmp.client.js';
import { parseProbeTarget } from './collector.probes.js';
import type { ProbeTarget } from './collector.probes.js';

/** One device a collector polls, and the hardware it reports as. */
export interface CollectedDevice {
  readonly host: string;
  readonly port: number;
  /** The serial number of the netgraph hardware device its reports are for; null: the device's own (ENTITY-MIB chassis serial, else its first MAC address). */
  readonly serialNumber: string | null;
  /** ifName (or ifDescr) of its uplink interfaces. */
  readonly uplinks: readonly string[];
  readonly snmp: SnmpCredentials;
  /** Targets each uplink is measured against every poll (docs/collector.md#uplink-probes). */
  readonly uplinkProbes: readonly UplinkProbe[];
}

/** An uplink (by interface name, one of the device's `uplinks`) and the TCP target its quality is measured against. */
export interface UplinkProbe {
  readonly uplink: string;
  readonly target: ProbeTarget;
}

/** Where the collector listens for SNMP notifications (docs/collector.md#traps). */
export interface TrapsConfig {
  /** UDP port; 162 by default (binding it needs root or CAP_NET_BIND_SERVICE). */
  readonly port: number;
  /** The address to listen on; null listens on every IPv4 address. */
  readonly address: string | null;
}

/** A collector's settings (docs/collector.md#the-configuration-file). */
export interface CollectorConfig {
  /** The netgraph server's base URL, e.g. http://netgraph.example:8080. */
  readonly server: string;
  /** An API key with the `ingest` scope. */
  readonly apiKey: string;
  readonly intervalSeconds: number;
  readonly spoolDir: string;
  readonly spoolMaxBytes: number;
  /** Devices polled at once. */
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly devices: readonly CollectedDevice[];
  /** TCP connection attempts per uplink probe and poll, and how long each waits for an answer. */
  readonly probeCount: number;
  readonly probeTimeoutMs: number;
  /** Where to listen for SNMP notifications; null: no trap receiver. */
  readonly traps: TrapsConfig | null;
}

type Json = Record<string, unknown>;

/**
 * Reads a collector's configuration file (JSON): every problem at once,
 * each at its path, as BAD_USER_INPUT; defaults filled in.
 */
export function parseCollectorConfig(text: string, source: string): CollectorConfig {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw new AppError('BAD_USER_INPUT', `${source} is not valid JSON: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  const check = createChecks(problems);
  const root = check.object(value, '$') ?? {};
  const config: CollectorConfig = {
    server: check.url(root.server, '$.server'),
    apiKey: check.text(root.apiKey, '$.apiKey', 200),
    intervalSeconds: check.integer(root.intervalSeconds ?? 60, '$.intervalSeconds', 10, 86_400),
    spoolDir: check.text(root.spoolDir ?? 'collector-spool', '$.spoolDir', 4096),
    spoolMaxBytes: check.integer(root.spoolMaxMiB ?? 256, '$.spoolMaxMiB', 1, 1_048_576) * 1024 * 1024,
    concurrency: check.integer(root.concurrency ?? 16, '$.concurrency', 1, 1024),
    timeoutMs: check.integer(root.timeoutMs ?? 2000, '$.timeoutMs', 100, 60_000),
    retries: check.integer(root.retries ?? 1, '$.retries', 0, 10),
    devices: check.list(root.devices, '$.devices').map((device, i) => readDevice(check, device, `$.devices[${i}]`)),
    probeCount: check.integer(root.probeCount ?? 5, '$.probeCount', 1, 100),
    probeTimeoutMs: check.integer(root.probeTimeoutMs ?? 1000, '$.probeTimeoutMs', 10, 60_000),
    traps: root.traps === undefined || root.traps === null ? null : readTraps(check, root.traps, '$.traps'),
  };
  if (problems.length > 0) throw new AppError('BAD_USER_INPUT', `${source} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n  ${problems.join('\n  ')}`);
  return config;
}

function readTraps(check: Checks, value: unknown, at: string): TrapsConfig {
  const traps = check.object(value, at) ?? {};
  return {
    port: check.integer(traps.port ?? 162, `${at}.port`, 1, 65_535),
    address: traps.address === undefined || traps.address === null ? null : check.ipAddress(traps.address, `${at}.address`),
  };
}

function readDevice(check: Checks, value: unknown, at: string): CollectedDevice {
  const device = check.object(value, at) ?? {};
  const uplinks = check.list(device.uplinks ?? [], `${at}.uplinks`).map((u, j) => check.text(u, `${at}.uplinks[${j}]`, 100));
  return {
    host: check.text(device.host, `${at}.host`, 255),
    port: check.integer(device.port ?? 161, `${at}.port`, 1, 65_535),
    serialNumber: device.serialNumber === undefined || device.serialNumber === null ? null : check.text(device.serialNumber, `${at}.serialNumber`, 100),
    uplinks,
    snmp: readCredentials(check, device.snmp, `${at}.snmp`),
    uplinkProbes: check.list(device.uplinkProbes ?? [], `${at}.uplinkProbes`).map((probe, j, all) => {
      const read = readProbe(check, probe, `${at}.uplinkProbes[${j}]`, uplinks);
      const first = all.findIndex((other) => (other as Json | null)?.uplink === read.uplink);
      if (read.uplink !== '' && first < j) check.fail(`${at}.uplinkProbes[${j}].uplink`, `repeats ${read.uplink}: one target per uplink`, '');
      return read;
    }),
  };
}

function readProbe(check: Checks, value: unknown, at: string, uplinks: readonly string[]): UplinkProbe {
  const probe = check.object(value, at) ?? {};
  const uplink =
    typeof probe.uplink === 'string' && uplinks.includes(probe.uplink)
      ? probe.uplink
      : check.fail(`${at}.uplink`, `must be one of the device's uplinks (${uplinks.length > 0 ? uplinks.join(', ') : 'it lists none'})`, '');
  const target = typeof probe.target === 'string' ? parseProbeTarget(probe.target) : null;
  return { uplink, target: target ?? check.fail(`${at}.target`, 'must be host:port of a TCP service, e.g. 198.51.100.1:443 or [2001:db8::1]:443', { host: '', port: 0 }) };
}

function readCredentials(check: Checks, value: unknown, at: string): SnmpCredentials {
  const snmp = check.object(value, at) ?? {};
  const version = check.oneOf(snmp.version ?? '2c', `${at}.version`, ['2c', '3'] as const);
  if (version === '2c') return { version, community: check.text(snmp.community, `${at}.community`, 255) };
  const level = check.oneOf(snmp.level ?? 'authPriv', `${at}.level`, ['authPriv', 'authNoPriv'] as const);
  const auth = {
    user: check.text(snmp.user, `${at}.user`, 32),
    authProtocol: check.oneOf(snmp.authProtocol ?? 'sha256', `${at}.authProtocol`, SNMP_AUTH_PROTOCOLS),
    authKey: check.secret(snmp.authKey, `${at}.authKey`),
  };
  if (level === 'authNoPriv') return { version, level, ...auth };
  return {
    version,
    level,
    ...auth,
    privProtocol: check.oneOf(snmp.privProtocol ?? 'aes', `${at}.privProtocol`, SNMP_PRIV_PROTOCOLS),
    privKey: check.secret(snmp.privKey, `${at}.privKey`),
  };
}

type Checks = ReturnType<typeof createChecks>;

/** Checks that record a problem at its path and return a placeholder, so every problem of a file is found in one read. */
function createChecks(problems: string[]) {
  const fail = <T>(at: string, message: string, placeholder: T): T => {
    problems.push(`${at}: ${message}`);
    return placeholder;
  };
  return {
    fail,
    object: (value: unknown, at: string): Json | undefined =>
      typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : fail(at, 'must be an object', undefined),
    list: (value: unknown, at: string): unknown[] => (Array.isArray(value) ? value : fail(at, 'must be a list', [])),
    text: (value: unknown, at: string, max: number): string =>
      typeof value === 'string' && value.trim() !== '' && value.length <= max ? value : fail(at, `must be a non-empty string of at most ${max} characters`, ''),
    // SNMPv3 keys are at least 8 characters (RFC 3414's password to key algorithm)
    secret: (value: unknown, at: string): string =>
      typeof value === 'string' && value.length >= 8 && value.length <= 255 ? value : fail(at, 'must be a string of 8 to 255 characters', ''),
    integer: (value: unknown, at: string, min: number, max: number): number =>
      Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? (value as number) : fail(at, `must be a whole number from ${min} to ${max}`, min),
    oneOf: <T extends string>(value: unknown, at: string, allowed: readonly T[]): T =>
      allowed.includes(value as T) ? (value as T) : fail(at, `must be one of ${allowed.join(', ')}`, allowed[0] as T),
    ipAddress: (value: unknown, at: string): string => (typeof value === 'string' && isIP(value) !== 0 ? value : fail(at, 'must be an IPv4 or IPv6 address', '')),
    url: (value: unknown, at: string): string => {
      const ok = typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
      return ok ? (value as string).replace(/\/+$/, '') : fail(at, 'must be the server\'s http:// or https:// base URL', '');
    },
  };
}
