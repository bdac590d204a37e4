import fs from 'node:fs/promises';
import { AppError } from '../kernel/errors.js';
import { parseCollectorConfig } from '../collector/collector.config.js';
import { createCollector } from '../collector/collector.service.js';
import type { PollOutcome } from '../collector/collector.service.js';
import { createProcessLog } from '../observability/log.js';
import type { CommandContext } from './io.js';
import { printJson, printTable } from './io.js';
import { abortOnSignals } from './options.js';

/**
 * `netgraph collector --config FILE`: polls the file's devices over SNMP
 * every interval and posts their reports, through the on-disk spool, until
 * SIGTERM or SIGINT (docs/collector.md). With `--once` it polls once and
 * prints the reports it would send (`--json`: as JSON) without sending
 * them; it exits 1 when a device could not be polled.
 */
export async function collector(context: CommandContext): Promise<number> {
  const config = await readConfig(context);
  const log = createProcessLog(context.config.logLevel, 2);
  try {
    const instance = createCollector(config, log.logger);
    if (context.values.once) return printOnce(context, await instance.pollAll());
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

function printOnce(context: CommandContext, outcomes: readonly PollOutcome[]): number {
  if (context.values.json) printJson(context.io, { devices: outcomes });
  else {
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
  return outcomes.some((o) => o.error !== null) ? 1 : 0;
}
