import { AppError } from '../kernel/errors.js';
import { KEY_SCOPES } from '../kernel/caller.js';
import type { ApiKeyInfo } from '../features/api-key/api-key.service.js';
import { EXPIRY_WARNING_DAYS, expiryState } from '../features/api-key/api-key.rules.js';
import type { Command, CommandContext, OperandSpec, OptionSpec } from './io.js';
import { printJson, printTable, required } from './io.js';
import { parseDuration } from './options.js';
import type { WithServices } from './options.js';
import { keyRequestsCommand } from './key-requests.command.js';

// `netgraph keys ...`: thin over the API key service, as the operator (CLI_ACTOR in the audit log)

const COMPANY: OptionSpec = { type: 'string', value: 'SLUG', description: 'the company, by its slug', required: true };
const KEY_ID: OperandSpec = { usage: 'ID', description: 'the key\'s id, from "netgraph keys list"' };
const ALLOW: OptionSpec = {
  type: 'string',
  value: 'CIDR',
  multiple: true,
  description: 'accept the key only from this IPv4 or IPv6 prefix or address (10.0.0.0/8, 2001:db8::/32, 192.0.2.7)',
  default: 'any address',
};
/** The rotation overlap when none is given. */
const DEFAULT_OVERLAP = '24h';

/** The values of a repeatable option, in the order given. */
function valuesOf(context: CommandContext, name: string): readonly string[] {
  return context.repeated?.[name] ?? [];
}

function keyId(context: CommandContext, doing: string): string {
  const id = context.positionals[0];
  if (id === undefined) throw new AppError('BAD_USER_INPUT', `name the key to ${doing} by its id, from "netgraph keys list"`);
  return id;
}

/** A key's STATUS cell: revoked, expired, a warning within EXPIRY_WARNING_DAYS of its expiry, or active. */
function statusOf(key: ApiKeyInfo, now: Date): string {
  if (key.revokedAt) return `revoked ${key.revokedAt}`;
  switch (expiryState(key.expiresAt, now)) {
    case 'expired':
      return `expired ${key.expiresAt}`;
    case 'soon':
      return `EXPIRES SOON (${key.expiresAt})`;
    default:
      return 'active';
  }
}

function keyRow(key: ApiKeyInfo, now: Date): string[] {
  return [
    key.id,
    key.label,
    `${key.prefix}…`,
    key.scope,
    key.createdAt,
    key.expiresAt ?? 'never',
    key.allowedAddresses.length === 0 ? 'any' : key.allowedAddresses.join(' '),
    key.lastUsedAt === null ? 'never' : `${key.lastUsedAt} from ${key.lastUsedAddress ?? 'unknown'}`,
    statusOf(key, now),
  ];
}

/** The text printed with a new key's value: the only time it is shown. */
function newKeyText(key: ApiKeyInfo & { key: string }, headline: string): string {
  // the terms only when the key has any, on the headline's line
  const terms = [
    ...(key.expiresAt === null ? [] : [`expires ${key.expiresAt}`]),
    ...(key.allowedAddresses.length === 0 ? [] : [`is allowed from ${key.allowedAddresses.join(', ')}`]),
  ];
  const head = terms.length === 0 ? headline : `${headline} It ${terms.join(' and ')}.`;
  return [head, '', `  ${key.key}`, '', 'This is the only time the key is shown: store it in your secret manager now.'].join('\n');
}

/** The `keys` commands. */
export function keyCommands(withServices: WithServices): Command[] {
  return [
    {
      path: ['keys', 'create'],
      summary: 'create an API key, optionally with an expiry and an IP allowlist; its value is printed once',
      options: {
        company: { ...COMPANY, description: 'the company the key belongs to' },
        label: { type: 'string', value: 'TEXT', description: 'a name that tells what uses the key', required: true },
        scope: { type: 'string', value: 'SCOPE', description: 'what it may do: read queries, read_write also mutations, ingest device reports', choices: KEY_SCOPES, default: 'read' },
        expires: {
          type: 'string',
          value: 'WHEN',
          description: 'stop working after a lifetime in hours or days (12h, 90d) or at an RFC 3339 date (2027-01-31, 2027-01-31T12:00:00Z), as if revoked',
          default: 'never',
        },
        allow: ALLOW,
      },
      examples: [
        'netgraph keys create --company acme --label billing-sync --scope read_write',
        'netgraph keys create --company acme --label backup-job --expires 90d --allow 10.0.0.0/8 --allow 2001:db8::/32',
      ],
      async run(context) {
        const companySlug = required(context, 'company', 'acme');
        const label = required(context, 'label', 'billing-sync');
        const { scope, expires } = context.values;
        const key = await withServices(context.config, (services) =>
          services.apiKeys.create({
            companySlug,
            label,
            allow: valuesOf(context, 'allow'),
            ...(typeof scope === 'string' ? { scope } : {}),
            ...(typeof expires === 'string' ? { expires } : {}),
          }),
        );
        if (context.values.json) printJson(context.io, key);
        else context.io.out(newKeyText(key, `Created API key "${key.label}" (id ${key.id}, scope ${key.scope}) for ${key.company}.`));
        return 0;
      },
    },
    {
      path: ['keys', 'list'],
      summary: `list a company's API keys: id, label, visible prefix, created, expiry (flagged ${EXPIRY_WARNING_DAYS} days ahead), allowlist, last use and its address, status`,
      options: { company: COMPANY },
      examples: ['netgraph keys list --company acme'],
      async run(context) {
        const companySlug = required(context, 'company', 'acme');
        const keys = await withServices(context.config, (services) => services.apiKeys.list(companySlug));
        const now = new Date();
        if (context.values.json) printJson(context.io, keys);
        else if (keys.length === 0) context.io.out(`No API keys for ${companySlug}.`);
        else printTable(context.io, ['ID', 'LABEL', 'KEY', 'SCOPE', 'CREATED', 'EXPIRES', 'ALLOWED FROM', 'LAST USED', 'STATUS'], keys.map((key) => keyRow(key, now)));
        return 0;
      },
    },
    {
      path: ['keys', 'allow'],
      summary: 'replace an API key\'s IP allowlist (--allow, repeatable), or accept it from any address again (--any)',
      operands: KEY_ID,
      options: {
        allow: { ...ALLOW, default: 'none given: any address' },
        any: { type: 'boolean', description: 'accept the key from any address (clears the allowlist)', default: 'off' },
      },
      examples: ['netgraph keys allow 0b6c2f9e-3a8e-4c1d-9f57-2d5e8a1b7c40 --allow 10.0.0.0/8 --allow 192.0.2.7', 'netgraph keys allow 0b6c2f9e-3a8e-4c1d-9f57-2d5e8a1b7c40 --any'],
      async run(context) {
        const id = keyId(context, 'change');
        const allow = valuesOf(context, 'allow');
        if (allow.length === 0 && context.values.any !== true) {
          throw new AppError('BAD_USER_INPUT', 'give the new allowlist with --allow CIDR (repeat for several), or --any to accept the key from any address');
        }
        if (allow.length > 0 && context.values.any === true) throw new AppError('BAD_USER_INPUT', 'give either --allow or --any, not both');
        const key = await withServices(context.config, (services) => services.apiKeys.setAllowlist(id, allow));
        if (context.values.json) printJson(context.io, key);
        else {
          const where = key.allowedAddresses.length === 0 ? 'any address' : key.allowedAddresses.join(', ');
          context.io.out(`netgraph keys allow: "${key.label}" (${key.id}) is now accepted from ${where}; other addresses get 401.`);
        }
        return 0;
      },
    },
    {
      path: ['keys', 'rotate'],
      summary: 'replace an API key: a successor with the same label, scope, lifetime and allowlist (printed once); the old key expires after the overlap',
      operands: KEY_ID,
      options: {
        overlap: { type: 'string', value: 'DURATION', description: 'how long the old key keeps working (90s, 30m, 24h, 7d; at most 30d)', default: DEFAULT_OVERLAP },
      },
      examples: ['netgraph keys rotate 0b6c2f9e-3a8e-4c1d-9f57-2d5e8a1b7c40 --overlap 24h'],
      async run(context) {
        const id = keyId(context, 'rotate');
        const overlap = context.values.overlap;
        const seconds = parseDuration(typeof overlap === 'string' ? overlap : DEFAULT_OVERLAP, 'overlap');
        const { successor, rotated } = await withServices(context.config, (services) => services.apiKeys.rotate(id, seconds));
        if (context.values.json) printJson(context.io, { ...successor, rotated });
        else {
          const headline = `Rotated API key "${rotated.label}": the old key (id ${rotated.id}) keeps working until ${rotated.expiresAt ?? 'never'}; its successor has id ${successor.id}, scope ${successor.scope}.`;
          context.io.out(newKeyText(successor, headline));
        }
        return 0;
      },
    },
    {
      path: ['keys', 'revoke'],
      summary: 'revoke an API key at once: its next request gets 401, on every server',
      operands: KEY_ID,
      options: {},
      examples: ['netgraph keys revoke 0b6c2f9e-3a8e-4c1d-9f57-2d5e8a1b7c40'],
      async run({ config, positionals, values, io }) {
        const id = positionals[0];
        if (id === undefined) throw new AppError('BAD_USER_INPUT', 'name the key to revoke by its id, from "netgraph keys list"');
        const { key, ranges } = await withServices(config, async (services) => ({ key: await services.apiKeys.revoke(id), ranges: await services.collectorRanges.countHeldBy(id) }));
        if (values.json) printJson(io, key);
        else io.out(`netgraph keys revoke: "${key.label}" (${key.id}) is revoked; requests with it now get 401.`);
        // its ranges go to no other collector by themselves: their credentials were given for this one
        if (ranges > 0) io.err(heldRangesWarning(key, ranges));
        return 0;
      },
    },
    keyRequestsCommand(withServices),
  ];
}

/** What revoking a collector's key leaves behind: the discovery ranges it held, swept by no one now. */
function heldRangesWarning(key: { id: string; label: string }, ranges: number): string {
  const count = ranges === 1 ? '1 discovery range' : `${ranges} discovery ranges`;
  return `netgraph keys revoke: warning: "${key.label}" held ${count}, which no collector sweeps now; give ${ranges === 1 ? 'it' : 'each'} another collector (netgraph collector ranges update ID --collector-key UUID, or all) or delete ${ranges === 1 ? 'it' : 'them'} (netgraph collector ranges list shows them as "key revoked").`;
}
