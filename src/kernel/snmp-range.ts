import { isIPv4 } from 'node:net';
import { AppError } from './errors.js';
import { createChecks, readCredentials } from './snmp-target.js';
import type { Checks, SnmpCredentials } from './snmp-target.js';

/**
 * The ranges a collector sweeps for SNMP agents (docs/collector.md#discovery),
 * and their rules: one definition for a configuration file's `discovery`,
 * `collector discover --range`, and the ranges netgraph stores
 * (src/features/collector-range), so all refuse the same things with the
 * same messages.
 */

/** The largest range one sweep takes: a /16 (65,536 addresses). */
export const MIN_PREFIX = 16;

/** The bounds and defaults of a sweep's rate (addresses started per second) and interval (seconds from one sweep's start to the next). */
export const SWEEP_LIMITS = {
  ratePerSecond: { default: 100, min: 1, max: 10_000 },
  intervalSeconds: { default: 3600, min: 60, max: 604_800 },
} as const;

/** A range as netgraph stores it and a collector fetches it: one CIDR, the credentials to try, its rate and interval. */
export interface RangeSettings {
  readonly range: string;
  readonly port: number;
  readonly snmp: SnmpCredentials;
  readonly ratePerSecond: number;
  readonly intervalSeconds: number;
}

/** Why `range` is no range a sweep takes; null when it is one. */
export function rangeProblem(range: string): string | null {
  try {
    rangeAddresses(range);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The addresses of an IPv4 CIDR range (a bare address is a /32), without
 * the network and broadcast addresses of a /30 or larger. BAD_USER_INPUT
 * for anything else, for host bits set, or a range larger than a /16.
 */
export function rangeAddresses(range: string): string[] {
  const [address = '', prefixText, ...rest] = range.trim().split('/');
  const prefix = prefixText === undefined ? 32 : Number(prefixText);
  if (rest.length > 0 || !isIPv4(address) || !/^\d{1,2}$/.test(prefixText ?? '32') || prefix > 32) {
    throw new AppError('BAD_USER_INPUT', `${range} is no IPv4 range: write it as address/prefix, e.g. 10.0.0.0/24`);
  }
  if (prefix < MIN_PREFIX) {
    throw new AppError('BAD_USER_INPUT', `${range} holds ${(2 ** (32 - prefix)).toLocaleString('en')} addresses: sweep at most a /${MIN_PREFIX} (65,536) at a time, e.g. split it into /${MIN_PREFIX} ranges`);
  }
  const base = address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const size = 2 ** (32 - prefix);
  if (base % size !== 0) {
    const network = base - (base % size);
    throw new AppError('BAD_USER_INPUT', `${range} has host bits set: its network is ${dotted(network)}/${prefix}`);
  }
  const [first, last] = prefix <= 30 ? [base + 1, base + size - 2] : [base, base + size - 1];
  return Array.from({ length: last - first + 1 }, (_, i) => dotted(first + i));
}

/** True when two valid CIDR ranges (rangeAddresses' rules) share an address: one holds the other. */
export function rangesOverlap(a: string, b: string): boolean {
  const [startA, endA] = bounds(a);
  const [startB, endB] = bounds(b);
  return startA <= endB && startB <= endA;
}

/** The first and last address of a CIDR range, as numbers (network and broadcast included). */
function bounds(range: string): [number, number] {
  const [address = '', prefixText = '32'] = range.trim().split('/');
  const base = address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  return [base, base + 2 ** (32 - Number(prefixText)) - 1];
}

function dotted(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** One range of a list (or the one of a stored range), checked at `at`: the empty string when it is none. */
export function readRange(check: Checks, value: unknown, at: string): string {
  const range = check.text(value, at, 50);
  const problem = range === '' ? null : rangeProblem(range);
  return problem === null ? range.trim() : check.fail(at, problem, '');
}

/** A sweep's rate, its default when absent. */
export function readRate(check: Checks, value: unknown, at: string): number {
  const { default: fallback, min, max } = SWEEP_LIMITS.ratePerSecond;
  return check.integer(value ?? fallback, at, min, max);
}

/** A sweep's interval, its default when absent. */
export function readSweepInterval(check: Checks, value: unknown, at: string): number {
  const { default: fallback, min, max } = SWEEP_LIMITS.intervalSeconds;
  return check.integer(value ?? fallback, at, min, max);
}

/**
 * A stored range's settings (range, port, snmp, ratePerSecond,
 * intervalSeconds) as netgraph takes them and a collector fetches them:
 * every problem, each at its path below `at`; no message repeats a credential.
 */
export function readRangeSettings(value: unknown, at: string): { settings: RangeSettings; problems: string[] } {
  const problems: string[] = [];
  const check = createChecks(problems);
  const given = check.object(value, at) ?? {};
  const settings: RangeSettings = {
    range: readRange(check, given.range, `${at}.range`),
    port: check.integer(given.port ?? 161, `${at}.port`, 1, 65_535),
    snmp: readCredentials(check, given.snmp, `${at}.snmp`),
    ratePerSecond: readRate(check, given.ratePerSecond, `${at}.ratePerSecond`),
    intervalSeconds: readSweepInterval(check, given.intervalSeconds, `${at}.intervalSeconds`),
  };
  return { settings, problems };
}
