import fs from 'node:fs/promises';
import { AppError } from '../kernel/errors.js';
import { parseCollectorConfig } from '../collector/collector.config.js';
import { createCollector } from '../collector/collector.service.js';
import type { PollOutcome, SweepOutcome } from '../collector/collector.service.js';
import { createProcessLog } from '../observability/log.js';
import type { CommandContext } from './io.js';
import { printJson, printTable } from './io.js';
import { abortOnSignals } from './options.js';
import type { SweepResult } from '../collector/collector.discovery.js';

/**
 * `netgraph collector --config FILE`: polls the file's devices over SNMP
 * every interval and posts their reports, through the on-disk spool, until
 * SIGTERM or SIGINT (docs/collector.md). With `--once` it polls once and
 * sweeps each discovery range once (the file's and netgraph's for its key),
 * and prints the reports it would send and the agents it would post
 * (`--json`: as JSON) without sending either; it exits 1 when a device could
 * not be polled.
 */
export async function collector(context: CommandContext): Promise<number> {
  const config = await readConfig(context);
  const log = createProcessLog(context.config.logLevel, 2);
  try {
    const instance = createCollector(config, log.logger);
    if (context.values.once) {
      const outcomes = await instance.pollAll();
      return printOnce(context, outcomes, await instance.sweepAll());
    }
    const { controller, release } = abortOnSignals();
    log.logger.info({ devices: config.devices.length, targets: config.targets, server: config.server, intervalSeconds: config.intervalSeconds }, 'collector started');
    try {
      await instance.run(controller.signal);
    } finally {
      release();
    }
    // which signal stopped it: a collector that stops "by itself" was sent one (docs/collector.md, Running it)
    log.logger.info({ reason: (controller.signal.reason as Error).message }, 'collector stopped');
    return 0;
  } finally {
    await log.close();
  }
}

/** The settings: the --config file's, or the server and key of --server and --key-file with every default. */
export async function readConfig(context: CommandContext) {
  const { config: file, server, 'key-file': keyFile, spool } = context.values;
  const read = (path: string) =>
    fs.readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new AppError('BAD_USER_INPUT', `cannot read ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
    });
  if (typeof file === 'string') {
    if (server !== undefined || keyFile !== undefined) throw new AppError('BAD_USER_INPUT', '--config names the server and key itself: leave out --server and --key-file');
    return parseCollectorConfig(await read(file), file);
  }
  if (typeof server !== 'string' || typeof keyFile !== 'string') {
    throw new AppError('BAD_USER_INPUT', 'name the server and key, e.g. --server https://netgraph.example --key-file collector.key, or a configuration file with --config collector.json');
  }
  const apiKey = (await read(keyFile)).trim();
  return parseCollectorConfig(JSON.stringify({ server, apiKey, ...(typeof spool === 'string' ? { spoolDir: spool } : {}) }), '--server and --key-file');
}

function printOnce(context: CommandContext, outcomes: readonly PollOutcome[], sweeps: readonly SweepOutcome[]): number {
  if (context.values.json) printJson(context.io, { devices: outcomes, discovery: sweeps.map(({ rangeId, result }) => ({ rangeId, ...result })) });
  else if (outcomes.length > 0 || sweeps.length === 0) {
    printTable(
      context.io,
      ['HOST', 'SERIAL', 'MS', 'PORTS', 'CLIENTS', 'UPTIME', 'ERROR'],
      outcomes.map((o) => [
        o.host,
        o.serialNumber ?? '-',
        String(o.durationMs),
        String((o.report?.interfaces as unknown[] | undefined)?.length ?? '-'),
        String((o.report?.clients as unknown[] | undefined)?.length ?? '-'),
        String(o.report?.uptimeSeconds ?? '-'),
        o.error ?? '',
      ]),
    );
  }
  if (!context.values.json) {
    for (const { rangeId, result } of sweeps) printSweep(context, result, null, rangeId === null ? 'the configuration file' : `range ${rangeId}`);
  }
  return outcomes.some((o) => o.error !== null) ? 1 : 0;
}

/**
 * One sweep as text: the agents found (a table), the refusals, and a summary
 * line (with `source`, which range it was, and what it left to an earlier
 * range of its cycle when it left something).
 */
export function printSweep(context: CommandContext, result: SweepResult, posted: { stored: number; new: number } | null, source?: string): void {
  if (result.found.length > 0) {
    printTable(
      context.io,
      ['ADDRESS', 'SYSNAME', 'VENDOR', 'MODEL', 'SERIAL', 'SNMP', 'SYSDESCR'],
      result.found.map((a) => [a.address, a.sysName ?? '-', a.vendor ?? '-', a.model ?? '-', a.serialNumber ?? '-', a.snmpVersion === '2c' ? 'v2c' : 'v3', (a.sysDescr ?? '-').slice(0, 60)]),
    );
  }
  for (const r of result.refused) context.io.out(`${r.address}: ${r.error}`);
  const skipped = result.skipped === 0 ? '' : `, ${result.skipped} left to an earlier range of the cycle`;
  const of = `${result.ranges.join(', ')}${source === undefined ? '' : ` (${source})`}`;
  const summary = `swept ${result.addresses} addresses of ${of}: ${result.found.length} found, ${result.noAnswer} did not answer, ${result.refused.length} refused the credentials${skipped}`;
  context.io.out(posted === null ? summary : `${summary}; posted to netgraph (${posted.new} new)`);
}
