import { AppError } from '../kernel/errors.js';
import type { KeyRequests } from '../features/request-log/request-log.service.js';
import { MAX_PAGE_SIZE } from '../features/request-log/request-log.service.js';
import type { Command } from './io.js';
import { printJson, printTable } from './io.js';
import type { WithServices } from './options.js';

// `netgraph keys requests ...`: a key's request log, thin over the request log service, as the operator

const SINCE_UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: a duration back from now such as 30m, 24h or 7d. */
function parseSince(value: string): number {
  const match = /^(\d+)([mhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (SINCE_UNITS[match[2] as string] ?? 0) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new AppError('BAD_USER_INPUT', `--since must be a duration back from now like 30m, 24h or 7d, not "${value}"`);
  return ms;
}

/** A whole number option from 1 to `max`. */
function parseCount(value: string | boolean | undefined, option: string, fallback: number, max: number): number {
  if (typeof value !== 'string') return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new AppError('BAD_USER_INPUT', `--${option} must be a whole number from 1 to ${max}, not "${value}"`);
  return n;
}

/** The overview: one row per hour with a request, a column per status and the total. */
function hourlyTable(log: KeyRequests): { header: string[]; rows: string[][] } {
  const statuses = [...new Set(log.hourly.map((h) => h.status))].sort((a, b) => a - b);
  const byHour = new Map<string, Map<number, number>>();
  for (const { hour, status, count } of log.hourly) {
    const counts = byHour.get(hour) ?? new Map<number, number>();
    counts.set(status, count);
    byHour.set(hour, counts);
  }
  const rows = [...byHour].map(([hour, counts]) => [
    hour.slice(0, 13).replace('T', ' ') + ':00Z',
    ...statuses.map((s) => String(counts.get(s) ?? 0)),
    String([...counts.values()].reduce((a, b) => a + b, 0)),
  ]);
  return { header: ['HOUR', ...statuses.map(String), 'TOTAL'], rows };
}

/** The `keys requests` command. */
export function keyRequestsCommand(withServices: WithServices): Command {
  return {
    path: ['keys', 'requests'],
    summary: 'a key\'s request log: its requests, newest first (time, status, operation, root fields, error codes, cost, duration, statements, address, user agent), and their count per hour by status',
    operands: { usage: 'ID|PREFIX', description: 'the key\'s id, or the start of its visible prefix (ngk_AbC123), from "netgraph keys list"' },
    options: {
      since: { type: 'string', value: 'DURATION', description: 'how far back (30m, 24h, 7d), at most API_REQUEST_LOG_DAYS', default: '24h' },
      status: { type: 'string', value: 'STATUS', description: 'only requests answered with this status (429) or class (2xx, 4xx, 5xx)', default: 'any' },
      operation: { type: 'string', value: 'NAME', description: 'only requests of the GraphQL operation with this name', default: 'any' },
      limit: { type: 'string', value: 'N', description: `how many requests to list, 1 to ${MAX_PAGE_SIZE}`, default: '50' },
      page: { type: 'string', value: 'N', description: 'which page of --limit requests, 1 for the newest', default: '1' },
    },
    examples: ['netgraph keys requests ngk_AbC123 --since 24h', 'netgraph keys requests 0b6c2f9e-3a8e-4c1d-9f57-2d5e8a1b7c40 --status 4xx --json'],
    async run(context) {
      const ref = context.positionals[0];
      if (ref === undefined) throw new AppError('BAD_USER_INPUT', 'name the key by its id or the start of its prefix, from "netgraph keys list"');
      const { since, status, operation, limit, page } = context.values;
      const query = {
        sinceMs: parseSince(typeof since === 'string' ? since : '24h'),
        pageSize: parseCount(limit, 'limit', 50, MAX_PAGE_SIZE),
        page: parseCount(page, 'page', 1, 1_000_000),
        ...(typeof status === 'string' ? { status } : {}),
        ...(typeof operation === 'string' ? { operationName: operation } : {}),
      };
      const log = await withServices(context.config, (services) => services.requestLog.requests(ref, query));
      if (context.values.json) {
        printJson(context.io, log);
        return 0;
      }
      const { io } = context;
      io.out(`Requests of API key "${log.key.label}" (${log.key.id}, ${log.key.prefix}…) of ${log.key.company} since ${log.since}:`);
      if (log.requests.length === 0) io.out('No requests.');
      else {
        printTable(
          io,
          ['TIME', 'METHOD', 'PATH', 'STATUS', 'OPERATION', 'ROOT FIELDS', 'ERRORS', 'COST', 'MS', 'SQL', 'FROM', 'USER AGENT'],
          log.requests.map((r) => [
            r.requestedAt,
            r.method,
            r.path,
            String(r.status),
            r.operationName ?? '-',
            r.rootFields ?? '-',
            r.errorCodes ?? '-',
            r.cost === null ? '-' : String(r.cost),
            String(r.durationMs),
            String(r.statements),
            r.clientAddress ?? '-',
            r.userAgent ?? '-',
          ]),
        );
        if (log.more) io.out(`More on --page ${(query.page ?? 1) + 1}.`);
      }
      if (log.hourly.length > 0) {
        io.out('');
        io.out('Requests per hour by status:');
        const overview = hourlyTable(log);
        printTable(io, overview.header, overview.rows);
      }
      return 0;
    },
  };
}
