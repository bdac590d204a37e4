import { randomUUID } from 'node:crypto';
import { AppError } from '../kernel/errors.js';
import { MAX_POLL_ERROR, MAX_REPORTS_PER_REQUEST, formatTime } from '../ingest/report.limits.js';
import type { Report } from '../ingest/report.protocol.js';
import { createHttpSink } from '../tools/simulator/simulator.sink.js';
import { INTERVAL_SECONDS } from '../kernel/snmp-target.js';
import type { CollectedDevice, CollectorConfig } from './collector.config.js';
import { createDeviceSource } from './collector.targets.js';
import { pollChassisSerial, pollDevice } from './collector.mibs.js';
import { buildReport, serialOfDevice } from './collector.report.js';
import type { DeviceMemory } from './collector.report.js';
import { ReportSpool } from './collector.spool.js';
import { openSnmpClient } from './snmp.client.js';
import { probeTcp } from './collector.probes.js';
import type { ProbeResult } from './collector.probes.js';
import { startTrapReceiver } from './collector.traps.js';
import { createSweepMemory, postDiscovered, sweep } from './collector.discovery.js';
import type { DiscoveryConfig, SweepMemory, SweepResult } from './collector.discovery.js';
import { createRangeSource } from './collector.ranges.js';
import type { RangeSource } from './collector.ranges.js';
import type { TrapEvent } from './collector.traps.js';

/** What polling one device came to: its report, or why there is none. */
export interface PollOutcome {
  readonly host: string;
  /** Null when the device was configured without one and its own could not be read. */
  readonly serialNumber: string | null;
  readonly durationMs: number;
  readonly report: Report | null;
  /** A failed poll's report: only the poll's error and duration (the device's source in netgraph). */
  readonly failed?: Report;
  readonly error: string | null;
}

/** Trap events that make the collector poll at once instead of at its next interval: the port's state changed. */
const POLL_NOW_EVENTS = new Set(['LINK_DOWN', 'LINK_UP']);
/** The least time between the starts of two polls, however many link traps arrive (a flapping port). */
const MIN_POLL_GAP_MS = 2_000;

/** Where the collector says what it does; its lines never hold a credential or the API key. */
export interface CollectorLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** What sweeping one discovery range came to: the file's (rangeId null) or one configured in netgraph. */
export interface SweepOutcome {
  readonly rangeId: string | null;
  readonly result: SweepResult;
}

/** A collector: polls its devices and delivers their reports through its spool. */
export interface Collector {
  /** Polls every device once (at most `concurrency` at a time), remembering uptimes and counters for the next poll. */
  pollAll(): Promise<PollOutcome[]>;
  /**
   * Sweeps every discovery range it would sweep when running (the file's
   * `discovery`, then the ranges netgraph answers for its key) once, as one
   * cycle, and returns what each found, posting nothing.
   */
  sweepAll(): Promise<SweepOutcome[]>;
  /** Polls, spools the reports, and sends what the spool holds; until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/** Builds a collector from its configuration: the file's devices and, unless `targets` is false, the targets configured in netgraph. */
export function createCollector(config: CollectorConfig, log: CollectorLog, now: () => Date = () => new Date()): Collector {
  const source = createDeviceSource(config, log);
  // by deviceKey: a target fetched again is a new object, but the same device
  const memory = new Map<string, DeviceMemory>();
  // devices whose reboot a coldStart/warmStart trap has reported since their last poll: the poll does not report it again
  const bootReportedByTrap = new Set<string>();
  // the serial numbers read from devices configured without one (by deviceKey), for their traps too
  const ownSerials = new Map<string, string>();
  const serialOf = (device: CollectedDevice) => device.serialNumber ?? ownSerials.get(deviceKey(device)) ?? null;

  async function poll(device: CollectedDevice): Promise<PollOutcome> {
    const started = performance.now();
    const observedAt = now();
    const client = openSnmpClient({ host: device.host, port: device.port, credentials: device.snmp, timeoutMs: config.timeoutMs, retries: config.retries });
    const key = deviceKey(device);
    const outcome = () => ({ host: device.host, serialNumber: serialOf(device) });
    try {
      // the uplinks' probes run while the agent is polled; the chassis serial only when the configuration names none
      const [polled, probes, chassisSerial] = await Promise.all([
        pollDevice(client),
        probeUplinks(device),
        device.serialNumber === null ? pollChassisSerial(client) : Promise.resolve(null),
      ]);
      const serialNumber = device.serialNumber ?? serialOfDevice(chassisSerial, polled);
      if (serialNumber === null) {
        throw new Error(`${device.host}:${device.port} has no serial number of its own (no ENTITY-MIB chassis serial, no MAC address): set its serialNumber in the configuration`);
      }
      ownSerials.set(key, serialNumber);
      const built = buildReport({ serialNumber, uplinks: device.uplinks }, polled, memory.get(key), observedAt, probes);
      memory.set(key, built.memory);
      const report = bootReportedByTrap.delete(key) ? withoutBootEvent(built.report) : built.report;
      const durationMs = elapsed(started);
      return { ...outcome(), durationMs, report: { ...report, poll: { durationMs, error: null } }, error: null };
    } catch (error) {
      const durationMs = elapsed(started);
      const message = error instanceof Error ? error.message : String(error);
      // the failure reaches netgraph too, as the device's source (its last error), without making it seen
      // (a device whose serial number is not known yet has no hardware in netgraph to give it to)
      const serialNumber = serialOf(device);
      const failed: Report | undefined =
        serialNumber === null ? undefined : { reportId: randomUUID(), serialNumber, observedAt: formatTime(observedAt.getTime() / 1000), poll: { durationMs, error: message.slice(0, MAX_POLL_ERROR) } };
      return { ...outcome(), durationMs, report: null, ...(failed === undefined ? {} : { failed }), error: message };
    } finally {
      client.close();
    }
  }

  /** Each uplink's probe results, by the uplink's name. */
  async function probeUplinks(device: CollectedDevice): Promise<Map<string, ProbeResult>> {
    const results = new Map<string, ProbeResult>();
    await Promise.all(device.uplinkProbes.map(async (p) => results.set(p.uplink, await probeTcp(p.target, config.probeCount, config.probeTimeoutMs))));
    return results;
  }

  /** Polls these devices, at most `concurrency` at a time. */
  async function pollDevices(devices: readonly CollectedDevice[]): Promise<PollOutcome[]> {
    const outcomes: PollOutcome[] = new Array<PollOutcome>(devices.length);
    let next = 0;
    const worker = async () => {
      while (next < devices.length) {
        const index = next++;
        outcomes[index] = await poll(devices[index] as CollectedDevice);
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.concurrency, devices.length) }, worker));
    return outcomes;
  }

  return {
    async pollAll() {
      if (source.due()) await source.refresh();
      return pollDevices(source.devices());
    },
    async sweepAll() {
      const ranges = createRangeSource(config, log);
      await ranges.refresh();
      const memory = createSweepMemory();
      const outcomes: SweepOutcome[] = [];
      for (const job of rangeJobs(config, ranges)) outcomes.push({ rangeId: job.rangeId, result: await sweep(job.discovery, undefined, memory) });
      return outcomes;
    },
    async run(signal) {
      const spool = await ReportSpool.open(config.spoolDir, config.spoolMaxBytes, {
        onNearlyFull: (bytes, limit) => log.warn({ bytes, limit }, 'the spool is over 80% full: the server has not taken reports for a while'),
        onDropped: (file, bytes) => log.error({ file, bytes }, 'the spool is full: dropped its oldest batch'),
      });
      const sink = createHttpSink({ url: config.server, key: config.apiKey, batchSize: MAX_REPORTS_PER_REQUEST, maxAttempts: 3, signal });
      // one delivery at a time, whether a cycle or a trap asks for it, so a batch is never sent twice at once
      let delivering: Promise<void> = Promise.resolve();
      const deliverInTurn = () => (delivering = delivering.then(() => deliver(spool, sink, log)));
      // a link trap asks for a poll now: during a poll, the next one starts without waiting; while waiting, the wait ends
      let pollNow = false;
      let endWait: (() => void) | null = null;
      await source.refresh(signal);
      const receiver =
        config.traps === null
          ? null
          : startTrapReceiver(
              config.traps,
              source.devices(),
              (trap) => void onTrap(trap).catch((error: unknown) => log.error({ serialNumber: serialOf(trap.device) }, `SNMP notification not spooled: ${String(error)}`)),
              log,
              now,
            );
      async function onTrap({ device, event }: TrapEvent): Promise<void> {
        const serialNumber = serialOf(device);
        if (serialNumber === null) {
          // configured without a serial number and not yet polled: whose event it is is not known yet
          log.warn({ host: device.host, type: event.type }, 'SNMP notification from a device not polled yet, whose serial number is unknown: dropped');
          return;
        }
        log.info({ host: device.host, serialNumber, type: event.type }, 'SNMP notification');
        if (event.type === 'DEVICE_BOOT') bootReportedByTrap.add(deviceKey(device));
        // a report of the event alone: sections left out leave the device's state as it was
        await spool.append([{ reportId: randomUUID(), serialNumber, observedAt: event.observedAt, events: [event] } satisfies Report]);
        await deliverInTurn();
        if (POLL_NOW_EVENTS.has(event.type)) {
          pollNow = true;
          endWait?.();
        }
      }
      // discovery sweeps on its own schedule, beside the polls
      // (the file's ranges and those configured in netgraph for this key)
      const discovering = config.discovery === null && !config.targets ? Promise.resolve() : discoverEvery(config, createRangeSource(config, log), log, signal);
      // when each device is next due (performance.now() ms), by deviceKey; a device new to the list is due at once
      const nextDue = new Map<string, number>();
      try {
        while (!signal.aborted) {
          const cycle = performance.now();
          if (source.due()) {
            await source.refresh(signal);
            receiver?.setDevices(source.devices());
          }
          const devices = source.devices();
          const due = pollNow ? devices : devices.filter((d) => (nextDue.get(deviceKey(d)) ?? 0) <= cycle);
          pollNow = false;
          const outcomes = await pollDevices(due);
          for (const d of due) nextDue.set(deviceKey(d), cycle + d.intervalSeconds * 1000);
          for (const o of outcomes) {
            if (o.error !== null) log.warn({ host: o.host, serialNumber: o.serialNumber, durationMs: o.durationMs }, `poll failed: ${o.error}`);
          }
          const reports = outcomes.flatMap((o) => (o.report !== null ? [o.report] : o.failed ? [o.failed] : []));
          for (let i = 0; i < reports.length; i += MAX_REPORTS_PER_REQUEST) await spool.append(reports.slice(i, i + MAX_REPORTS_PER_REQUEST));
          if (due.length > 0) log.info({ devices: outcomes.length, failed: outcomes.filter((o) => o.error !== null).length, durationMs: elapsed(cycle) }, 'polled');
          await deliverInTurn();
          const keys = new Set(devices.map(deviceKey));
          for (const key of nextDue.keys()) if (!keys.has(key)) nextDue.delete(key);
          const wake = Math.min(...[...nextDue.values()], config.targets ? performance.now() + config.targetsRefreshSeconds * 1000 : Infinity, performance.now() + INTERVAL_SECONDS.max * 1000);
          if (!pollNow) await sleep(wake - performance.now(), signal, (end) => (endWait = end));
          endWait = null;
          await sleep(MIN_POLL_GAP_MS - (performance.now() - cycle), signal);
        }
      } finally {
        await receiver?.close();
        await delivering;
        await discovering;
      }
    },
  };
}

/** A discovery range to sweep: the file's (rangeId null) or one configured in netgraph. */
interface RangeJob {
  readonly rangeId: string | null;
  readonly discovery: DiscoveryConfig;
}

/** The ranges a collector sweeps, in the order of a cycle: the file's `discovery` first, then netgraph's (by range, then id). */
function rangeJobs(config: CollectorConfig, source: RangeSource): RangeJob[] {
  return [...(config.discovery === null ? [] : [{ rangeId: null, discovery: config.discovery }]), ...source.ranges()];
}

/**
 * Sweeps each discovery range on its own interval (the first sweep at once),
 * one sweep at a time, each at its own bounded rate, and posts what each
 * found, until `signal` aborts: the configuration file's `discovery`, and
 * the ranges configured in netgraph for the collector's key, refreshed as
 * the targets are. The ranges due together are one cycle, sharing what it
 * learns (SweepMemory): an agent is probed and posted once a cycle however
 * many of its ranges hold it. Each range's next sweep is due its interval
 * after the start of its cycle, so ranges of one interval stay in one cycle.
 * A sweep or post that fails is logged and tried again at the next
 * interval: what an agent says of itself is found again, so nothing is spooled.
 */
async function discoverEvery(config: CollectorConfig, source: RangeSource, log: CollectorLog, signal: AbortSignal): Promise<void> {
  // when each range is next due (performance.now() ms), by rangeKey; a range new to the list is due at once
  const nextDue = new Map<string, number>();
  await source.refresh(signal);
  while (!signal.aborted) {
    if (source.dueAt() <= performance.now()) await source.refresh(signal);
    const jobs = rangeJobs(config, source);
    const cycle = performance.now();
    const memory = createSweepMemory();
    for (const job of jobs) {
      const key = rangeKey(job);
      if ((nextDue.get(key) ?? 0) > cycle || signal.aborted) continue;
      nextDue.set(key, cycle + job.discovery.intervalSeconds * 1000);
      await sweepAndPost(job, memory, config, log, signal);
    }
    const keys = new Set(jobs.map(rangeKey));
    for (const key of nextDue.keys()) if (!keys.has(key)) nextDue.delete(key);
    await sleep(Math.min(...nextDue.values(), source.dueAt(), performance.now() + INTERVAL_SECONDS.max * 1000) - performance.now(), signal);
  }
}

/** What identifies a discovery range across refreshes: where it came from and what it sweeps. */
function rangeKey(job: RangeJob): string {
  return `${job.rangeId ?? 'file'} ${job.discovery.ranges.join(',')}:${job.discovery.port}`;
}

/** One sweep of a range and the post of what it found, logged either way (never a credential). */
async function sweepAndPost(job: RangeJob, memory: SweepMemory, config: CollectorConfig, log: CollectorLog, signal: AbortSignal): Promise<void> {
  const started = performance.now();
  try {
    const result = await sweep(job.discovery, signal, memory);
    const posted = result.found.length === 0 || signal.aborted ? { stored: 0, new: 0 } : await postDiscovered(config.server, config.apiKey, result.found, signal);
    log.info(
      {
        ranges: result.ranges,
        addresses: result.addresses,
        found: result.found.length,
        new: posted.new,
        noAnswer: result.noAnswer,
        refused: result.refused.length,
        skipped: result.skipped,
        durationMs: elapsed(started),
        rangeId: job.rangeId,
      },
      'discovery sweep',
    );
  } catch (error) {
    if (!signal.aborted) log.warn({ ranges: job.discovery.ranges, rangeId: job.rangeId }, `discovery sweep not delivered: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** What identifies a device across target refreshes: where it is and what it reports as. */
function deviceKey(device: CollectedDevice): string {
  return `${device.targetId ?? 'file'} ${device.serialNumber} ${device.host}:${device.port}`;
}

/** A report without the DEVICE_BOOT event its poll found, which a trap has reported already. */
function withoutBootEvent(report: Report): Report {
  const events = report.events?.filter((e) => e.type !== 'DEVICE_BOOT');
  const { events: _, ...rest } = report;
  return events === undefined || events.length === 0 ? rest : { ...rest, events };
}

/**
 * Sends the spooled batches oldest first and removes each the server
 * answered; stops at the first that could not be delivered (the server
 * unreachable, or refusing the key), to try again next cycle, in order.
 */
async function deliver(spool: ReportSpool, sink: ReturnType<typeof createHttpSink>, log: CollectorLog): Promise<void> {
  for (const batch of await spool.pending()) {
    try {
      // the report protocol's objects as buildReport made them, read back from the spool's files
      const result = await sink.send(batch.reports as Report[]);
      for (const r of result.rejected) log.warn({ serialNumber: r.serialNumber, path: r.path, code: r.code }, `report refused: ${r.message}`);
      await spool.remove(batch);
    } catch (error) {
      if (error instanceof AppError && error.code === 'BAD_REQUEST') {
        // a batch the server can never take (400, 413): keep it aside for a person, not in the way of the next ones
        log.error({ file: batch.file }, `the server refused a spooled batch; moved aside: ${error.message}`);
        await spool.setAside(batch);
        continue;
      }
      log.warn({ waiting: batch.file }, `reports not delivered, kept in the spool: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** Waits `ms`, or until `signal` aborts, or until the function handed to `onEnd` is called. */
function sleep(ms: number, signal: AbortSignal, onEnd: (end: () => void) => void = () => undefined): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
    onEnd(done);
  });
}
