import fs from 'node:fs/promises';
import { AppError } from '../kernel/errors.js';
import { parseJsonText } from '../kernel/json-input.js';
import { createChecks } from '../kernel/snmp-target.js';
import { COLLECTOR_OPTIONS } from './options.js';
import type { Command, CommandContext } from './io.js';
import { printJson } from './io.js';

/**
 * `netgraph collector discover --range CIDR --snmp FILE`: one sweep for SNMP
 * agents, printed (docs/collector.md#discovery). With `--once` it only
 * prints; otherwise it also posts what it found to the server of --config
 * (or --server and --key-file), as a running collector's sweeps do.
 */
export const COLLECTOR_DISCOVER_COMMAND: Command = {
  path: ['collector', 'discover'],
  summary: 'sweeps an address range for SNMP agents with the given credentials and prints each (sysName, vendor, model, serial); posts them to netgraph unless --once',
  options: {
    range: { type: 'string', value: 'CIDR', multiple: true, description: 'an IPv4 range to sweep, at most a /16', required: true },
    snmp: { type: 'string', value: 'FILE', description: 'a JSON file with the credentials to try: one object or a list ({"version": "2c", "community": "…"} or SNMPv3); - reads stdin', required: true, file: true },
    concurrency: { type: 'string', value: 'N', description: 'addresses probed at once, 1 to 1024', default: '32' },
    rate: { type: 'string', value: 'N', description: 'addresses started per second, at most; 1 to 10000', default: '100' },
    timeout: { type: 'string', value: 'MS', description: 'how long each request waits for an answer, 100 to 60000', default: '1000' },
    config: COLLECTOR_OPTIONS.config as NonNullable<(typeof COLLECTOR_OPTIONS)['config']>,
    server: COLLECTOR_OPTIONS.server as NonNullable<(typeof COLLECTOR_OPTIONS)['server']>,
    'key-file': COLLECTOR_OPTIONS['key-file'] as NonNullable<(typeof COLLECTOR_OPTIONS)['key-file']>,
    once: { type: 'boolean', description: 'print what it found without posting it to the server', default: 'off' },
  },
  examples: [
    'netgraph collector discover --range 10.0.0.0/24 --snmp snmp.json --once',
    'netgraph collector discover --range 10.0.0.0/24 --snmp snmp.json --server https://netgraph.example --key-file collector.key --json',
  ],
  run: discover,
};

async function discover(context: CommandContext): Promise<number> {
  // loaded by this command only: net-snmp is a fifth of every other command's start
  const { postDiscovered, readDiscovery, sweep } = await import('../collector/collector.discovery.js');
  const { printSweep, readConfig } = await import('./collector.command.js');
  const problems: string[] = [];
  const number = (name: string, fallback: number) => (context.values[name] === undefined ? fallback : Number(context.values[name]));
  const discovery = readDiscovery(
    createChecks(problems),
    {
      ranges: [context.values.range ?? []].flat(),
      snmp: await readCredentialsFile(context),
      concurrency: number('concurrency', 32),
      ratePerSecond: number('rate', 100),
      timeoutMs: number('timeout', 1000),
    },
    '',
  );
  if (problems.length > 0) throw new AppError('BAD_USER_INPUT', problems.map(asOption).join('\n'));
  // the server's settings are read (and refused) before the sweep, not after
  const server = context.values.once ? null : await readConfig(context);
  const result = await sweep(discovery);
  const posted = server === null || result.found.length === 0 ? null : await postDiscovered(server.server, server.apiKey, result.found);
  if (context.values.json) printJson(context.io, { ...result, ...(posted === null ? {} : { posted }) });
  else printSweep(context, result, posted);
  return 0;
}

/** A problem at the discovery section's path in the command's own terms: `.ranges[0]: …` as `--range 10.0.0.0/8: …`. */
function asOption(problem: string): string {
  return problem.replace(/^\.ranges(\[\d+\])?/, '--range').replace(/^\.snmp/, '--snmp').replace(/^\.ratePerSecond/, '--rate').replace(/^\.timeoutMs/, '--timeout').replace(/^\.concurrency/, '--concurrency');
}

/** The credentials file: one object or a list; never quoted back, since it holds secrets. */
async function readCredentialsFile(context: CommandContext): Promise<unknown[]> {
  const file = context.values.snmp as string;
  const text =
    file === '-'
      ? await context.io.readStdin()
      : await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          throw new AppError('BAD_USER_INPUT', `cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
        });
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch {
    throw new AppError('BAD_USER_INPUT', `${file} is not valid JSON: write {"version": "2c", "community": "…"}, an SNMPv3 object of docs/collector.md, or a list of them`);
  }
  return Array.isArray(value) ? value : [value];
}
