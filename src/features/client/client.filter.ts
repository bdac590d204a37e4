import { isSerialNumber, SERIAL_RULE } from '../../kernel/rules.js';
import { isIpAddress } from '../../kernel/formats.js';
import { isIP } from 'node:net';
import type { ArgumentProblem, ArgumentValues, RootArgument, SqlContext } from '../../engine/read.model.js';

/** The longest lookbackMinutes: 30 days. */
export const MAX_LOOKBACK_MINUTES = 43_200;

/** The NetworkClientsFilter argument of networkClients and networksClients, as the read model checks it. */
export const CLIENTS_FILTER_ARGUMENT: RootArgument = {
  name: 'filter',
  type: 'input',
  fields: [
    { name: 'excludeMeterHardware', type: 'boolean' },
    { name: 'includeLatency', type: 'boolean' },
    { name: 'includeThroughput', type: 'boolean' },
    { name: 'lookbackMinutes', type: 'int' },
    { name: 'apSerialNumber', type: 'text', check: isSerialNumber, rule: SERIAL_RULE },
    {
      name: 'ipRange',
      type: 'input',
      fields: [
        { name: 'start', type: 'text', check: isIpAddress, rule: 'an IP address' },
        { name: 'end', type: 'text', check: isIpAddress, rule: 'an IP address' },
      ],
    },
    { name: 'macAddress', type: 'text', check: () => true, rule: 'a MAC address' },
    { name: 'ssid', type: 'text', check: () => true, rule: 'a name' },
    { name: 'timestamp', type: 'datetime' },
    { name: 'vlanID', type: 'int' },
  ],
};

interface ClientsFilter {
  readonly excludeMeterHardware: boolean;
  readonly includeLatency: boolean;
  readonly includeThroughput: boolean;
  readonly lookbackMinutes: number;
  readonly apSerialNumber?: string | null;
  readonly ipRange?: { readonly start: string; readonly end: string } | null;
  readonly macAddress?: string | null;
  readonly ssid?: string | null;
  readonly timestamp?: string | null;
  readonly vlanID?: number | null;
}

const filterOf = (args: ArgumentValues): ClientsFilter | undefined => (args.filter as ClientsFilter | null | undefined) ?? undefined;

/** The filter's rules beyond its types: refused with the argument's path and what to send instead. */
export function checkClientsFilter(args: ArgumentValues): ArgumentProblem | undefined {
  const filter = filterOf(args);
  if (filter === undefined) return undefined;
  // NetworkClient has no latency or throughput fields yet: asking for them must not pass silently
  for (const flag of ['includeLatency', 'includeThroughput'] as const) {
    if (filter[flag]) return { argument: `filter.${flag}`, message: 'is not supported yet: send false.' };
  }
  if (filter.lookbackMinutes < 1 || filter.lookbackMinutes > MAX_LOOKBACK_MINUTES) {
    return { argument: 'filter.lookbackMinutes', message: `must be 1 to ${MAX_LOOKBACK_MINUTES} (30 days).` };
  }
  const range = filter.ipRange;
  if (range != null && isIP(range.start) !== isIP(range.end)) {
    return { argument: 'filter.ipRange', message: 'start and end must be of one family: both IPv4 or both IPv6.' };
  }
  return undefined;
}

/** The window's end: the filter's timestamp, else the time of the request. */
const windowEnd = (args: ArgumentValues, now: Date): Date => {
  const at = filterOf(args)?.timestamp;
  return at == null ? now : new Date(at);
};

/** The window's start: lookbackMinutes before its end. */
const windowStart = (args: ArgumentValues, now: Date): string =>
  new Date(windowEnd(args, now).getTime() - (filterOf(args)?.lookbackMinutes ?? 0) * 60_000).toISOString();

/**
 * True when the client row aliased `cl` was seen in the filter's window:
 * without a timestamp, last listed (lastSeen) in the last lookbackMinutes;
 * with one, in a client session of the network that began at or before the
 * timestamp and was last listed at or after lookbackMinutes before it.
 */
function seenInWindow(cl: string, c: SqlContext): string {
  const noTimestamp = c.value('boolean', (args) => filterOf(args)?.timestamp == null);
  return (
    `(CASE WHEN ${noTimestamp} THEN ${cl}.last_seen >= ${c.value('timestamptz', windowStart)} ELSE EXISTS (SELECT 1 FROM client_sessions cs ` +
    `WHERE cs.network_id = ${cl}.network_id AND cs.mac_address = ${cl}.mac_address ` +
    `AND cs.first_seen <= ${c.value('timestamptz', (args, now) => windowEnd(args, now).toISOString())} AND cs.last_seen >= ${c.value('timestamptz', windowStart)}) END)`
  );
}

/** `(absent OR condition)`: the flag parameter says whether the filter's field `field` is absent. */
const unlessAbsent = (c: SqlContext, field: keyof ClientsFilter, condition: () => string): string =>
  `(${c.value('boolean', (args) => filterOf(args)?.[field] == null)} OR ${condition()})`;

/** The field conditions of the filter for the client row aliased `cl`; each holds when its field is absent. */
function fieldConditions(cl: string, c: SqlContext): string {
  const d = c.dialect;
  return [
    `(${c.value('boolean', (args) => filterOf(args)?.excludeMeterHardware !== true)} OR ${cl}.mac_address NOT IN ` +
      `(SELECT hm.mac_address FROM hardware_devices hm WHERE hm.company_id = ${c.company()} AND hm.mac_address IS NOT NULL))`,
    unlessAbsent(c, 'apSerialNumber', () =>
      `(${cl}.is_wireless AND ${cl}.hardware_device_id = (SELECT ah.id FROM hardware_devices ah WHERE ah.serial_number = ${c.arg('filter.apSerialNumber')} AND ah.company_id = ${c.company()}))`,
    ),
    unlessAbsent(c, 'ipRange', () => `(${cl}.ip IS NOT NULL AND ${d.ipBetween(`${cl}.ip`, c.arg('filter.ipRange.start'), c.arg('filter.ipRange.end'))})`),
    unlessAbsent(c, 'macAddress', () => `${cl}.mac_address = ${c.arg('filter.macAddress')}`),
    unlessAbsent(c, 'ssid', () => `(${cl}.is_wireless AND ${cl}.ssid = ${c.arg('filter.ssid')})`),
    unlessAbsent(c, 'vlanID', () => `${cl}.vlan_id = ${c.arg('filter.vlanID')}`),
  ].join(' AND ');
}

/**
 * Which clients of a network the row aliased `cl` must be to be listed:
 * without a filter, `connected` (the current clients); with one, seen in its
 * window and matching every field given (docs in the SDL of NetworkClientsFilter).
 */
export function clientsSelected(cl: string, c: SqlContext, connected: () => string): string {
  if (!c.mayBeGiven('filter')) return connected();
  // parameters in text order (SQLite's are positional)
  const noFilter = c.value('boolean', (args) => filterOf(args) === undefined);
  const current = connected();
  const seen = seenInWindow(cl, c);
  return `(CASE WHEN ${noFilter} THEN ${current} ELSE (${seen} AND ${fieldConditions(cl, c)}) END)`;
}
