import { AppError } from '../kernel/errors.js';
import type { RangeInfo, RangeSettingsInput, RangeStatus } from '../features/collector-range/collector-range.service.js';
import type { Command, CommandContext, OperandSpec, OptionSpec } from './io.js';
import { printJson, printTable, required } from './io.js';
import type { WithServices } from './options.js';
import { COMPANY, readSnmp } from './collector-targets.command.js';

// `netgraph collector ranges ...`: thin over the discovery range service, as the operator of the named company (CLI_ACTOR)

const RANGE_ID: OperandSpec = { usage: 'ID', description: 'the range\'s id, from "netgraph collector ranges list"' };
const EVERY_COLLECTOR = 'all';

/** The settings both create and update take; with `required`, --range and --snmp must be given. */
function settingOptions(required: boolean): Record<string, OptionSpec> {
  return {
    company: COMPANY,
    range: { type: 'string', value: 'CIDR', description: 'the IPv4 range to sweep, at most a /16, e.g. 10.0.0.0/24', required, ...(required ? {} : { default: 'unchanged' }) },
    snmp: { type: 'string', value: 'FILE', description: 'a JSON file with the credentials ({"version": "2c", "community": "…"} or SNMPv3); - reads stdin', required, file: true, ...(required ? {} : { default: 'unchanged' }) },
    port: { type: 'string', value: 'N', description: 'the agents\' UDP port', default: required ? '161' : 'unchanged' },
    rate: { type: 'string', value: 'N', description: 'addresses started per second, at most; 1 to 10000', default: required ? '100' : 'unchanged' },
    interval: { type: 'string', value: 'SECONDS', description: 'from the start of one sweep to the next, 60 to 604800', default: required ? '3600' : 'unchanged' },
    'collector-key': { type: 'string', value: 'UUID', description: `the ingest key (its id) of the one collector that sweeps it; ${EVERY_COLLECTOR}: every collector of the company`, default: required ? EVERY_COLLECTOR : 'unchanged' },
  };
}

/** The options given, as the service's settings (absent ones left out). */
async function settingsOf(context: CommandContext): Promise<RangeSettingsInput> {
  const value = (name: string) => (typeof context.values[name] === 'string' ? (context.values[name] as string) : undefined);
  const number = (option: string, field: string) => (value(option) === undefined ? {} : { [field]: Number(value(option)) });
  const key = value('collector-key');
  return {
    ...(value('range') === undefined ? {} : { range: value('range') }),
    ...(value('snmp') === undefined ? {} : { snmp: await readSnmp(context) }),
    ...number('port', 'port'),
    ...number('rate', 'ratePerSecond'),
    ...number('interval', 'intervalSeconds'),
    ...(key === undefined ? {} : { collectorKeyUUID: key === EVERY_COLLECTOR ? null : key }),
  };
}

function rangeRow(range: RangeInfo): string[] {
  const snmp = range.snmpVersion === '2c' ? 'v2c' : `v3 ${range.snmpUser ?? ''} ${range.snmpLevel ?? ''}`.trim();
  const collector = range.collectorKeyUUID === null ? 'every collector' : `${range.collectorKeyLabel ?? ''} (${range.collectorKeyUUID})`;
  return [range.UUID, `${range.range}:${range.port}`, snmp, `${range.ratePerSecond}/s`, `${range.intervalSeconds}s`, collector, STATUS_TEXT[range.status]];
}

/** The STATUS column: whether a collector sweeps the range, and why none does. */
const STATUS_TEXT: Readonly<Record<RangeStatus, string>> = {
  ACTIVE: 'active',
  KEY_REVOKED: 'key revoked: swept by no one',
  KEY_EXPIRED: 'key expired: swept by no one',
};

function operand(context: CommandContext): string {
  const id = context.positionals[0];
  if (id === undefined) throw new AppError('BAD_USER_INPUT', 'name the range by its id, from "netgraph collector ranges list"');
  return id;
}

/** The `collector ranges` commands, over the CLI's `withServices`. */
export function collectorRangeCommands(withServices: WithServices): Command[] {
  const print = (context: CommandContext, range: RangeInfo, text: string) => (context.values.json ? printJson(context.io, range) : context.io.out(text));
  return [
    {
      path: ['collector', 'ranges', 'create'],
      summary: 'add a range for the company\'s collectors to sweep for SNMP agents; its credentials are read from a file, stored encrypted and never shown',
      options: settingOptions(true),
      examples: [
        'netgraph collector ranges create --company acme --range 10.0.0.0/24 --snmp snmp.json',
        'printf \'{"version":"2c","community":"%s"}\' "$COMMUNITY" | netgraph collector ranges create --company acme --range 10.0.0.0/24 --snmp - --rate 20 --collector-key 5b0c3c1e-…',
      ],
      async run(context) {
        const company = required(context, 'company', 'acme');
        required(context, 'range', '10.0.0.0/24');
        required(context, 'snmp', 'snmp.json');
        const input = await settingsOf(context);
        const range = await withServices(context.config, async (services) => services.collectorRanges.create(await services.webhooks.cliCaller(company), input));
        print(context, range, `netgraph collector ranges create: added ${range.range} (id ${range.UUID}); ${range.collectorKeyUUID === null ? 'the company\'s collectors sweep it from their' : 'its collector sweeps it from its'} next fetch.`);
        return 0;
      },
    },
    {
      path: ['collector', 'ranges', 'update'],
      summary: 'change the given settings of a range; --snmp replaces its credentials whole',
      operands: RANGE_ID,
      options: settingOptions(false),
      examples: ['netgraph collector ranges update --company acme --rate 20 5b0c3c1e-7c1a-4d7e-9a57-0d3e1f2a4b6c'],
      async run(context) {
        const company = required(context, 'company', 'acme');
        const input = { rangeUUID: operand(context), ...(await settingsOf(context)) };
        const range = await withServices(context.config, async (services) => services.collectorRanges.update(await services.webhooks.cliCaller(company), input));
        print(context, range, `netgraph collector ranges update: saved ${range.range} (id ${range.UUID}).`);
        return 0;
      },
    },
    {
      path: ['collector', 'ranges', 'list'],
      summary: 'list the company\'s discovery ranges (never their credentials) and whether a collector sweeps each',
      options: { company: COMPANY },
      examples: ['netgraph collector ranges list --company acme'],
      async run(context) {
        const company = required(context, 'company', 'acme');
        const ranges = await withServices(context.config, async (services) => services.collectorRanges.list(await services.webhooks.cliCaller(company)));
        if (context.values.json) printJson(context.io, ranges);
        else if (ranges.length === 0) context.io.out(`No discovery ranges for ${company}.`);
        else printTable(context.io, ['ID', 'RANGE', 'SNMP', 'RATE', 'INTERVAL', 'COLLECTOR', 'STATUS'], ranges.map(rangeRow));
        return 0;
      },
    },
    {
      path: ['collector', 'ranges', 'delete'],
      summary: 'delete a discovery range; collectors stop sweeping it from their next fetch',
      operands: RANGE_ID,
      options: { company: COMPANY },
      examples: ['netgraph collector ranges delete --company acme 5b0c3c1e-7c1a-4d7e-9a57-0d3e1f2a4b6c'],
      async run(context) {
        const company = required(context, 'company', 'acme');
        const input = { rangeUUID: operand(context) };
        const range = await withServices(context.config, async (services) => services.collectorRanges.delete(await services.webhooks.cliCaller(company), input));
        print(context, range, `netgraph collector ranges delete: deleted ${range.range} (id ${range.UUID}).`);
        return 0;
      },
    },
  ];
}
