import fs from 'node:fs/promises';
import { AppError } from '../kernel/errors.js';
import { parseCollectorConfig } from '../collector/collector.config.js';
import { createCollector } from '../collector/collector.service.js';
import type { PollOutcome } from '../collector/collector.service.js';
import { createProcessLog } from '../observability/log.js';
import type { CommandContext, OptionSpec } from './io.js';
import { printJson, printTable, required } from './io.js';
import { abortOnSignals } from './simulate.command.js';

/** The options of `netgraph collector`. */
export const COLLECTOR_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', value: 'FILE', description: 'the configuration file: server, ingest key, devices and their SNMP credentials', required: true, file: true },
  once: { type: 'boolean', description: 'poll once and print the reports instead of sending them; exit 1 when a device failed', default: 'off' },
};

/**
 * `netgraph collector --config FILE`: polls the file's devices over SNMP
 * every interval and posts their reports, through the on-disk spool, until
 * SIGTERM or SIGINT (docs/collector.md). With `--once` it polls once and
 * prints the reports it would send (`--json`: as JSON) without sending
 * them; it exits 1 when a device could not be polled.
 */
export async function collector(context: CommandContext): Promise<number> {
  const file = required(context, 'config', 'collector.json');
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new AppError('BAD_USER_INPUT', `cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  const config = parseCollectorConfig(text, file);
  const log = createProcessLog(context.config.logLevel, 2);
  try {
    const instance = createCollector(config, log.logger);
    if (context.values.once) return printOnce(context, await instance.pollAll());
    const { controller, release } = abortOnSignals();
    log.logger.info({ devices: config.devices.length, server: config.server, intervalSeconds: config.intervalSeconds }, 'collector started');
    try {
      await instance.run(controller.signal);
    } finally {
      release();
    }
    log.logger.info('collector stopped');
    return 0;
  } finally {
    await log.close();
  }
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
