import { isIP } from 'node:net';

/**
 * The settings of an SNMP device to poll, and their rules: one definition
 * for the collector's configuration file and the targets netgraph stores
 * (src/features/collector-target), so both refuse the same things with the
 * same messages. Every check records its problem at its JSON path and
 * returns a placeholder, so all problems are found in one read; no message
 * ever repeats a credential.
 */

type Json = Record<string, unknown>;

/** SNMPv2c: a community string. */
export interface SnmpV2cCredentials {
  readonly version: '2c';
  readonly community: string;
}

/** SNMPv3 USM: a user with authentication and, by default, privacy (authPriv). */
export interface SnmpV3Credentials {
  readonly version: '3';
  readonly user: string;
  readonly level: 'authPriv' | 'authNoPriv';
  readonly authProtocol: SnmpAuthProtocol;
  readonly authKey: string;
  /** Required with `authPriv`. */
  readonly privProtocol?: SnmpPrivProtocol;
  readonly privKey?: string;
}

export type SnmpCredentials = SnmpV2cCredentials | SnmpV3Credentials;

export const SNMP_AUTH_PROTOCOLS = ['sha', 'sha224', 'sha256', 'sha384', 'sha512'] as const;
export type SnmpAuthProtocol = (typeof SNMP_AUTH_PROTOCOLS)[number];
export const SNMP_PRIV_PROTOCOLS = ['aes', 'aes256b', 'aes256r'] as const;
export type SnmpPrivProtocol = (typeof SNMP_PRIV_PROTOCOLS)[number];

/** Stored SNMP credentials as the API shows them: their kind, never a community or key. */
export interface SnmpInfo {
  readonly snmpVersion: string;
  readonly snmpUser: string | null;
  readonly snmpLevel: string | null;
  readonly authProtocol: string | null;
  readonly privProtocol: string | null;
}

/** Stored SNMP credentials as a repository reads them: their kind, and the secrets sealed. */
export interface StoredSnmp extends SnmpInfo {
  readonly credentials: string;
}

/** The columns SNMP credentials are stored in (a target's, a discovery range's): the secrets sealed, the rest plain. */
export interface SnmpColumns {
  readonly snmp_version: string;
  readonly snmp_user: string | null;
  readonly snmp_level: string | null;
  readonly auth_protocol: string | null;
  readonly priv_protocol: string | null;
  readonly credentials: string;
}

/** A target the collector measures an uplink against: a host and a TCP port that answers (or refuses) connections. */
export interface ProbeTarget {
  readonly host: string;
  readonly port: number;
}

/** `host:port` (an IPv6 host in brackets) as a target; null when it is not one. */
export function parseProbeTarget(text: string): ProbeTarget | null {
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || !(port >= 1 && port <= 65_535)) return null;
  return { host: (match[1] ?? match[2]) as string, port };
}

/** An uplink (by interface name, one of the device's `uplinks`) and the TCP target its quality is measured against. */
export interface UplinkProbe {
  readonly uplink: string;
  readonly target: ProbeTarget;
}

/** A device's settings to poll it by (its serial number aside: the file names it, a target's virtual device has it). */
export interface TargetSettings {
  readonly host: string;
  readonly port: number;
  /** ifName (or ifDescr) of its uplink interfaces. */
  readonly uplinks: readonly string[];
  readonly snmp: SnmpCredentials;
  /** Targets each uplink is measured against every poll (docs/collector.md#uplink-probes). */
  readonly uplinkProbes: readonly UplinkProbe[];
  /** Seconds from the start of one poll of the device to the next. */
  readonly intervalSeconds: number;
}

/** The poll interval of a device that names none, and the bounds of any. */
export const INTERVAL_SECONDS = { default: 60, min: 10, max: 86_400 } as const;

/**
 * A target's settings as netgraph stores them and the collector fetches
 * them (host, port, snmp, intervalSeconds, uplinks, uplinkProbes), checked
 * by the rules of the configuration file's devices: every problem, each at
 * its path below `at`; no message repeats a credential.
 */
export function readTargetSettings(value: unknown, at: string): { settings: TargetSettings; problems: string[] } {
  const problems: string[] = [];
  const settings = readSettings(createChecks(problems), value, at, undefined);
  return { settings, problems };
}

export function readSettings(check: Checks, value: unknown, at: string, fileInterval: unknown): TargetSettings {
  const device = check.object(value, at) ?? {};
  const uplinks = check.list(device.uplinks ?? [], `${at}.uplinks`).map((u, j) => check.text(u, `${at}.uplinks[${j}]`, 100));
  const { min, max } = INTERVAL_SECONDS;
  // a file's device polls at the file's interval unless it names its own (a bad file interval is reported once, at $.intervalSeconds)
  const fileIntervalValid = typeof fileInterval === 'number' && Number.isInteger(fileInterval) && fileInterval >= min && fileInterval <= max;
  const fallback = fileIntervalValid ? fileInterval : INTERVAL_SECONDS.default;
  return {
    host: check.text(device.host, `${at}.host`, 255),
    port: check.integer(device.port ?? 161, `${at}.port`, 1, 65_535),
    intervalSeconds: check.integer(device.intervalSeconds ?? fallback, `${at}.intervalSeconds`, min, max),
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

/** SNMP credentials (v2c community, or v3 USM with defaults authPriv, sha256, aes), each problem at its path below `at`. */
export function readCredentials(check: Checks, value: unknown, at: string): SnmpCredentials {
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

export type Checks = ReturnType<typeof createChecks>;

/** Checks that record a problem at its path and return a placeholder, so every problem of a file is found in one read. */
export function createChecks(problems: string[]) {
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
    boolean: (value: unknown, at: string): boolean => (typeof value === 'boolean' ? value : fail(at, 'must be true or false', false)),
    ipAddress: (value: unknown, at: string): string => (typeof value === 'string' && isIP(value) !== 0 ? value : fail(at, 'must be an IPv4 or IPv6 address', '')),
    url: (value: unknown, at: string): string => {
      const ok = typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
      return ok ? (value as string).replace(/\/+$/, '') : fail(at, 'must be the server\'s http:// or https:// base URL', '');
    },
  };
}
