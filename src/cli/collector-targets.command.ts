import fs from 'node:fs/promises';
import { AppError } from '../kernel/errors.js';
import { parseJsonText } from '../kernel/json-input.js';
import type { TargetInfo } from '../features/collector-target/collector-target.service.js';
import type { Command, CommandContext, OperandSpec, OptionSpec } from './io.js';
import { printJson, printTable, required } from './io.js';
import type { WithServices } from './options.js';

// `netgraph collector targets ...`: thin over the collector target service, as the operator of the named company (CLI_ACTOR)

export const COMPANY: OptionSpec = { type: 'string', value: 'SLUG', description: 'the company, by its slug', required: true };
const TARGET_ID: OperandSpec = { usage: 'ID', description: 'the target\'s id, from "netgraph collector targets list"' };

/** The SNMP credentials from a JSON file or stdin (`-`), never from the command line, where `ps` and shell history would show them. */
export async function readSnmp(context: CommandContext): Promise<Record<string, unknown>> {
  const file = required(context, 'snmp', 'snmp.json');
  const text =
    file === '-'
      ? await context.io.readStdin()
      : await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          throw new AppError('BAD_USER_INPUT', `cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
        });
  try {
    return parseJsonText(text) as Record<string, unknown>;
  } catch {
    // the text holds secrets: the parser's message may quote it
    throw new AppError('BAD_USER_INPUT', `${file} is not valid JSON: write {"version": "2c", "community": "…"} or the SNMPv3 object of docs/collector.md`);
  }
}

function targetRow(target: TargetInfo): string[] {
  const snmp = target.snmpVersion === '2c' ? 'v2c' : `v3 ${target.snmpUser ?? ''} ${target.snmpLevel ?? ''}`.trim();
  return [target.UUID, target.virtualDeviceUUID, `${target.host}:${target.port}`, snmp, `${target.intervalSeconds}s`, target.uplinks.join(',')];
}

/** The `collector targets` commands, over the CLI's `withServices`. */
export function collectorTargetCommands(withServices: WithServices): Command[] {
  return [
    {
      path: ['collector', 'targets', 'create'],
      summary: 'add a device for the company\'s collectors to poll; its SNMP credentials are read from a file, stored encrypted and never shown',
      options: {
        company: COMPANY,
        device: { type: 'string', value: 'UUID', description: 'the virtual device it reports as (with hardware assigned)', required: true },
        host: { type: 'string', value: 'HOST', description: 'the agent\'s address', required: true },
        port: { type: 'string', value: 'N', description: 'the agent\'s UDP port', default: '161' },
        snmp: { type: 'string', value: 'FILE', description: 'a JSON file with the credentials ({"version": "2c", "community": "…"} or SNMPv3); - reads stdin', required: true, file: true },
        interval: { type: 'string', value: 'SECONDS', description: 'from the start of one poll to the next, 10 to 86400', default: '60' },
        uplink: { type: 'string', value: 'NAME', multiple: true, description: 'an interface (ifName, else ifDescr) reported as an uplink', default: 'none' },
        probe: { type: 'string', value: 'UPLINK=HOST:PORT', multiple: true, description: 'a TCP target the uplink\'s quality is measured against', default: 'none' },
      },
      examples: [
        'netgraph collector targets create --company acme --device 04405a7c-37dc-4320-8806-76ff4f397f6d --host 192.0.2.10 --snmp snmp.json --uplink eth0',
        'printf \'{"version":"2c","community":"%s"}\' "$COMMUNITY" | netgraph collector targets create --company acme --device 04405a7c-… --host 192.0.2.10 --snmp -',
      ],
      async run(context) {
        const company = required(context, 'company', 'acme');
        const input = {
          virtualDeviceUUID: required(context, 'device', '04405a7c-37dc-4320-8806-76ff4f397f6d'),
          host: required(context, 'host', '192.0.2.10'),
          snmp: await readSnmp(context),
          ...(typeof context.values.port === 'string' ? { port: Number(context.values.port) } : {}),
          ...(typeof context.values.interval === 'string' ? { intervalSeconds: Number(context.values.interval) } : {}),
          uplinks: context.repeated?.uplink ?? [],
          uplinkProbes: context.repeated?.probe ?? [],
        };
        const target = await withServices(context.config, async (services) => services.collectorTargets.create(await services.webhooks.cliCaller(company), input));
        if (context.values.json) printJson(context.io, target);
        else context.io.out(`netgraph collector targets create: added ${target.host}:${target.port} (id ${target.UUID}); the company's collectors poll it from their next fetch.`);
        return 0;
      },
    },
    {
      path: ['collector', 'targets', 'list'],
      summary: 'list the company\'s collector targets (never their credentials)',
      options: { company: COMPANY },
      examples: ['netgraph collector targets list --company acme'],
      async run(context) {
        const company = required(context, 'company', 'acme');
        const targets = await withServices(context.config, async (services) => services.collectorTargets.list(await services.webhooks.cliCaller(company)));
        if (context.values.json) printJson(context.io, targets);
        else if (targets.length === 0) context.io.out(`No collector targets for ${company}.`);
        else printTable(context.io, ['ID', 'DEVICE', 'AGENT', 'SNMP', 'INTERVAL', 'UPLINKS'], targets.map(targetRow));
        return 0;
      },
    },
    {
      path: ['collector', 'targets', 'delete'],
      summary: 'delete a collector target; collectors stop polling it from their next fetch',
      operands: TARGET_ID,
      options: { company: COMPANY },
      examples: ['netgraph collector targets delete --company acme 5b0c3c1e-7c1a-4d7e-9a57-0d3e1f2a4b6c'],
      async run(context) {
        const company = required(context, 'company', 'acme');
        const id = context.positionals[0];
        if (id === undefined) throw new AppError('BAD_USER_INPUT', 'name the target by its id, from "netgraph collector targets list"');
        const target = await withServices(context.config, async (services) => services.collectorTargets.delete(await services.webhooks.cliCaller(company), { targetUUID: id }));
        if (context.values.json) printJson(context.io, target);
        else context.io.out(`netgraph collector targets delete: deleted ${target.host}:${target.port} (id ${target.UUID}).`);
        return 0;
      },
    },
  ];
}
