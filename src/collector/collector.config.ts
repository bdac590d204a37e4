import { AppError } from '../kernel/errors.js';
import { parseJsonText } from '../kernel/json-input.js';
import { INTERVAL_SECONDS, createChecks, readSettings } from '../kernel/snmp-target.js';
import type { Checks, TargetSettings } from '../kernel/snmp-target.js';
import { readDiscovery } from './collector.discovery.js';
import type { DiscoveryConfig } from './collector.discovery.js';

/** One device a collector polls, and the hardware it reports as. */
export interface CollectedDevice extends TargetSettings {
  /** The serial number of the netgraph hardware device its reports are for; null: the device's own (ENTITY-MIB chassis serial, else its first MAC address). */
  readonly serialNumber: string | null;
  /** The UUID of the netgraph target it came from; null for a device of the configuration file. */
  readonly targetId: string | null;
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
  /** Whether to poll the targets configured in netgraph too (docs/collector.md#targets-in-netgraph), and how often to fetch them. */
  readonly targets: boolean;
  readonly targetsRefreshSeconds: number;
  /** What to sweep for SNMP agents, and how (docs/collector.md#discovery); null: no discovery. */
  readonly discovery: DiscoveryConfig | null;
}

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
    intervalSeconds: check.integer(root.intervalSeconds ?? INTERVAL_SECONDS.default, '$.intervalSeconds', INTERVAL_SECONDS.min, INTERVAL_SECONDS.max),
    spoolDir: check.text(root.spoolDir ?? 'collector-spool', '$.spoolDir', 4096),
    spoolMaxBytes: check.integer(root.spoolMaxMiB ?? 256, '$.spoolMaxMiB', 1, 1_048_576) * 1024 * 1024,
    concurrency: check.integer(root.concurrency ?? 16, '$.concurrency', 1, 1024),
    timeoutMs: check.integer(root.timeoutMs ?? 2000, '$.timeoutMs', 100, 60_000),
    retries: check.integer(root.retries ?? 1, '$.retries', 0, 10),
    devices: check.list(root.devices ?? [], '$.devices').map((device, i) => readDevice(check, device, `$.devices[${i}]`, root.intervalSeconds)),
    probeCount: check.integer(root.probeCount ?? 5, '$.probeCount', 1, 100),
    probeTimeoutMs: check.integer(root.probeTimeoutMs ?? 1000, '$.probeTimeoutMs', 10, 60_000),
    traps: root.traps === undefined || root.traps === null ? null : readTraps(check, root.traps, '$.traps'),
    targets: check.boolean(root.targets ?? true, '$.targets'),
    targetsRefreshSeconds: check.integer(root.targetsRefreshSeconds ?? 60, '$.targetsRefreshSeconds', 1, 86_400),
    discovery: root.discovery === undefined || root.discovery === null ? null : readDiscovery(check, root.discovery, '$.discovery'),
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

function readDevice(check: Checks, value: unknown, at: string, fileInterval: unknown): CollectedDevice {
  const device = check.object(value, at) ?? {};
  return { ...readSettings(check, device, at, fileInterval), serialNumber: device.serialNumber === undefined || device.serialNumber === null ? null : check.text(device.serialNumber, `${at}.serialNumber`, 100),
    targetId: null,
  };
}

