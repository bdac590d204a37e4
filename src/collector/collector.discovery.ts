import { createHash } from 'node:crypto';
import { AppError } from '../kernel/errors.js';
import { identifyAgent } from '../kernel/snmp-vendors.js';
import type { SnmpCredentials } from '../kernel/snmp-target.js';
import type { Checks } from '../kernel/snmp-target.js';
import { readCredentials } from '../kernel/snmp-target.js';
import { rangeAddresses, readRange, readRate, readSweepInterval } from '../kernel/snmp-range.js';
import { MAX_DISCOVERED_PER_REQUEST, MAX_SYS_DESCR, MAX_SYS_NAME } from '../ingest/discovered.protocol.js';
import type { FoundAgent } from '../ingest/discovered.protocol.js';
import { SYSTEM, pollChassisSerial, pollDevice } from './collector.mibs.js';
import { serialOfDevice } from './collector.report.js';
import { SnmpError, openSnmpClient } from './snmp.client.js';

/** Where a collector posts what its sweeps found (src/http/routes/collector-discovered.route.ts). */
export const DISCOVERED_PATH = '/api/v1/collector/discovered';

/** How a collector sweeps for SNMP agents (docs/collector.md#discovery). */
export interface DiscoveryConfig {
  /** IPv4 CIDR ranges, each at most a /16. */
  readonly ranges: readonly string[];
  /** Tried in order at each address; the first that answers is the agent's. */
  readonly snmp: readonly SnmpCredentials[];
  readonly port: number;
  /** Addresses probed at once. */
  readonly concurrency: number;
  /** Addresses started per second, at most. */
  readonly ratePerSecond: number;
  /** Per request, and retries per address and credentials. */
  readonly timeoutMs: number;
  readonly retries: number;
  /** Seconds from the start of one sweep to the next, when the collector runs. */
  readonly intervalSeconds: number;
}

/** An agent a sweep found: what it says of itself, and the vendor and model its sysObjectID names. */
export interface DiscoveredAgent extends FoundAgent {
  readonly vendor: string | null;
  readonly model: string | null;
}

/** What one sweep came to. */
export interface SweepResult {
  readonly ranges: readonly string[];
  /** Addresses probed. */
  readonly addresses: number;
  readonly found: readonly DiscoveredAgent[];
  /** Addresses where no credentials got an answer (nothing there, no agent, or a v2c community it does not know). */
  readonly noAnswer: number;
  /** Addresses whose agent refused every SNMPv3 credential (wrong user or keys), each with why. */
  readonly refused: readonly { address: string; error: string }[];
  /** Addresses not probed: an earlier range of the same cycle found their agent, or tried each of these credentials there. */
  readonly skipped: number;
}

/**
 * What the ranges swept in one cycle have learnt of each address and port:
 * an agent answered there, or which credentials got none. Shared by the
 * cycle's sweeps (one at a time), so that ranges that overlap probe an
 * address once for each set of credentials and an agent once: an agent one
 * range found is not probed (nor posted) again by another, while an
 * address that did not answer is still tried with another range's
 * credentials. Held in memory for the cycle only; the credentials as digests.
 */
export interface SweepMemory {
  /** The credentials still to try at the address and port, in the given order: none once an agent answered there. */
  untried(address: string, port: number, snmp: readonly SnmpCredentials[]): SnmpCredentials[];
  /** That these credentials were tried there, and whether an agent answered. */
  record(address: string, port: number, snmp: readonly SnmpCredentials[], found: boolean): void;
}

/** A new cycle's memory: nothing probed yet. */
export function createSweepMemory(): SweepMemory {
  const found = new Set<string>();
  const tried = new Map<string, Set<string>>();
  const where = (address: string, port: number) => `${address}:${port}`;
  return {
    untried(address, port, snmp) {
      const at = where(address, port);
      if (found.has(at)) return [];
      const done = tried.get(at);
      return done === undefined ? [...snmp] : snmp.filter((c) => !done.has(credentialsDigest(c)));
    },
    record(address, port, snmp, answered) {
      const at = where(address, port);
      if (answered) {
        found.add(at);
        tried.delete(at);
        return;
      }
      const done = tried.get(at) ?? new Set<string>();
      for (const c of snmp) done.add(credentialsDigest(c));
      tried.set(at, done);
    },
  };
}

/** Equal for equal credentials whatever the order of their fields; not the credentials themselves. */
function credentialsDigest(credentials: SnmpCredentials): string {
  const fields = Object.entries(credentials).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64');
}

/** The `discovery` section of a configuration file, or --range and --snmp of `collector discover`: every problem recorded at its path. */
export function readDiscovery(check: Checks, value: unknown, at: string): DiscoveryConfig {
  const section = check.object(value, at) ?? {};
  const ranges = check.list(section.ranges ?? [], `${at}.ranges`).map((r, i) => readRange(check, r, `${at}.ranges[${i}]`));
  if (ranges.length === 0) check.fail(`${at}.ranges`, 'must list at least one range, e.g. ["10.0.0.0/24"]', null);
  const snmp = check.list(section.snmp ?? [], `${at}.snmp`).map((c, i) => readCredentials(check, c, `${at}.snmp[${i}]`));
  if (snmp.length === 0) check.fail(`${at}.snmp`, 'must list at least one set of credentials, e.g. [{"version": "2c", "community": "public"}]', null);
  return {
    ranges,
    snmp,
    port: check.integer(section.port ?? 161, `${at}.port`, 1, 65_535),
    concurrency: check.integer(section.concurrency ?? 32, `${at}.concurrency`, 1, 1024),
    ratePerSecond: readRate(check, section.ratePerSecond, `${at}.ratePerSecond`),
    timeoutMs: check.integer(section.timeoutMs ?? 1000, `${at}.timeoutMs`, 100, 60_000),
    retries: check.integer(section.retries ?? 0, `${at}.retries`, 0, 10),
    intervalSeconds: readSweepInterval(check, section.intervalSeconds, `${at}.intervalSeconds`),
  };
}

/** What probing one address came to. */
type Probe = { kind: 'found'; agent: DiscoveredAgent } | { kind: 'no-answer' } | { kind: 'refused'; error: string } | { kind: 'skipped' };

/**
 * Sweeps the ranges for SNMP agents: at most `concurrency` addresses at
 * once, started at most `ratePerSecond` a second, each asked for its system
 * group with every set of credentials in turn until one answers. An agent
 * that answers is read further, once, for its serial number (ENTITY-MIB's
 * chassis serial, else its first MAC address: what the collector reports it
 * as when polled without one). An address its ranges list twice is probed
 * once. With `memory` (one cycle's), an address is probed only with the
 * credentials the cycle has not tried there yet, and not at all once an
 * agent answered there. Stops early when `signal` aborts.
 */
export async function sweep(config: DiscoveryConfig, signal?: AbortSignal, memory: SweepMemory = createSweepMemory()): Promise<SweepResult> {
  const addresses = [...new Set(config.ranges.flatMap(rangeAddresses))];
  const probes = new Array<Probe>(addresses.length);
  const gapMs = 1000 / config.ratePerSecond;
  let next = 0;
  let nextStartAt = performance.now();
  const worker = async () => {
    while (next < addresses.length && signal?.aborted !== true) {
      const index = next++;
      const wait = nextStartAt - performance.now();
      nextStartAt = Math.max(nextStartAt, performance.now()) + gapMs;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      probes[index] = await probe(config, addresses[index] as string, memory);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.concurrency, addresses.length) }, worker));
  // an aborted sweep leaves holes; `refused` keeps each probe's own address
  const done = probes.flatMap((p, i) => (p === undefined ? [] : [{ p, address: addresses[i] as string }]));
  return {
    ranges: config.ranges,
    addresses: done.filter(({ p }) => p.kind !== 'skipped').length,
    found: done.flatMap(({ p }) => (p.kind === 'found' ? [p.agent] : [])),
    noAnswer: done.filter(({ p }) => p.kind === 'no-answer').length,
    refused: done.flatMap(({ p, address }) => (p.kind === 'refused' ? [{ address, error: p.error }] : [])),
    skipped: done.filter(({ p }) => p.kind === 'skipped').length,
  };
}

async function probe(config: DiscoveryConfig, address: string, memory: SweepMemory): Promise<Probe> {
  const untried = memory.untried(address, config.port, config.snmp);
  if (untried.length === 0) return { kind: 'skipped' };
  const outcome = await probeWith(config, address, untried);
  memory.record(address, config.port, untried, outcome.kind === 'found');
  return outcome;
}

async function probeWith(config: DiscoveryConfig, address: string, snmp: readonly SnmpCredentials[]): Promise<Probe> {
  let refusal: string | null = null;
  for (const credentials of snmp) {
    const client = openSnmpClient({ host: address, port: config.port, credentials, timeoutMs: config.timeoutMs, retries: config.retries });
    try {
      // the system group alone first: most addresses of a range have no agent, and cost one request each
      await client.get([SYSTEM.sysName]);
      const [poll, chassisSerial] = await Promise.all([pollDevice(client), pollChassisSerial(client)]);
      const found: FoundAgent = {
        address,
        snmpVersion: credentials.version,
        sysName: poll.sysName?.slice(0, MAX_SYS_NAME) ?? null,
        sysDescr: poll.sysDescr?.slice(0, MAX_SYS_DESCR) ?? null,
        sysObjectID: poll.sysObjectID,
        serialNumber: serialOfDevice(chassisSerial, poll),
      };
      return { kind: 'found', agent: { ...found, ...identifyAgent(found.sysObjectID) } };
    } catch (error) {
      // a v2c community the agent does not know gets no answer at all; a v3 agent says why it refuses
      if (error instanceof SnmpError && error.kind === 'authentication') refusal = error.message;
    } finally {
      client.close();
    }
  }
  return refusal === null ? { kind: 'no-answer' } : { kind: 'refused', error: refusal };
}

/** Posts what a sweep found to the server, in requests of at most MAX_DISCOVERED_PER_REQUEST; how many it stored and how many were new. */
export async function postDiscovered(server: string, apiKey: string, agents: readonly DiscoveredAgent[], signal?: AbortSignal): Promise<{ stored: number; new: number }> {
  const total = { stored: 0, new: 0 };
  for (let i = 0; i < agents.length; i += MAX_DISCOVERED_PER_REQUEST) {
    const devices = agents.slice(i, i + MAX_DISCOVERED_PER_REQUEST).map(({ vendor: _vendor, model: _model, ...found }) => found);
    const response = await fetch(`${server}${DISCOVERED_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ devices }),
      ...(signal ? { signal } : {}),
    });
    if (response.status !== 200) {
      const body = (await response.json().catch(() => null)) as { errors?: { message?: string }[] } | null;
      const message = body?.errors?.[0]?.message ?? `HTTP ${response.status}`;
      throw new AppError(response.status === 401 || response.status === 403 ? 'FORBIDDEN' : 'SERVICE_UNAVAILABLE', `the server did not take the discovered devices: ${message}`);
    }
    const answer = (await response.json()) as { stored: number; new: number };
    total.stored += answer.stored;
    total.new += answer.new;
  }
  return total;
}
