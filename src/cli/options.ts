import type { Config } from '../config.js';
import { AppError } from '../kernel/errors.js';
import type { Services } from '../services.js';
import type { OptionSpec } from './io.js';

// The options and small helpers the commands share. Kept apart from the
// commands that run a server, the simulator or the collector, which the CLI
// loads only when one of them runs: any other command starts without loading
// Fastify, the dashboard, the GraphQL engine or net-snmp.

/** How a command gets the services: the CLI's `withServices`, handed in so this file does not import commands.ts. */
export type WithServices = <T>(config: Config, fn: (services: Services) => Promise<T>) => Promise<T>;

/** The options of `netgraph simulate`. */
export const SIMULATE_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  company: { type: 'string', value: 'SLUG', description: 'only this company\'s devices', default: 'every company with assigned devices' },
  interval: { type: 'string', value: 'SECONDS', description: 'time between two reports of a device, 1 to 86400', default: '30' },
  seed: { type: 'string', value: 'N', description: 'another seed, another fleet history, 0 to 4294967295', default: '1' },
  url: { type: 'string', value: 'URL', description: 'the server to post to; needs --key', default: 'http://127.0.0.1:$PORT' },
  key: { type: 'string', value: 'KEY', description: 'an API key with the ingest scope; required with --url', default: 'a new ingest key per company' },
  backfill: { type: 'string', value: 'DURATION', description: 'first send this much history (90s, 30m, 24h, 7d; at most 30d)', default: 'none' },
};

/** The options of `netgraph collector`. */
export const COLLECTOR_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', value: 'FILE', description: 'the configuration file: server, ingest key, settings, devices of its own', default: 'none: --server and --key-file', file: true },
  server: { type: 'string', value: 'URL', description: 'without --config: the netgraph server, whose targets for the key are polled', default: 'none' },
  'key-file': { type: 'string', value: 'FILE', description: 'without --config: a file holding the ingest key (not the command line, where ps shows it)', default: 'none', file: true },
  spool: { type: 'string', value: 'DIR', description: 'without --config: where reports wait for the server', default: 'collector-spool', file: true },
  once: { type: 'boolean', description: 'poll once and sweep each discovery range once, and print the reports and the agents found instead of sending them; exit 1 when a device failed', default: 'off' },
};

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const MAX_BACKFILL_SECONDS = 30 * 86_400;

/** A duration like 90s, 30m, 24h or 7d in seconds (up to 30 days); BAD_USER_INPUT otherwise. */
export function parseDuration(value: string, option: string): number {
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  const seconds = match ? Number(match[1]) * (UNITS[match[2] as string] ?? 0) : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds > MAX_BACKFILL_SECONDS) {
    throw new AppError('BAD_USER_INPUT', `--${option} must be a duration like 30m, 24h or 7d (at most 30d), not "${value}"`);
  }
  return seconds;
}

/** The value of an integer option from `min` to `max`, or undefined when absent; BAD_USER_INPUT naming the option otherwise. */
export function integerOption(value: string | boolean | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new AppError('BAD_USER_INPUT', `--${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/** An AbortController aborted by SIGINT or SIGTERM, and how to stop listening. */
export function abortOnSignals(): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  // the signal's name in the reason, so a log can say who asked it to stop
  const stop = (signal: NodeJS.Signals) => controller.abort(new Error(`stopped by ${signal}`));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  return { controller, release: () => process.off('SIGINT', stop).off('SIGTERM', stop) };
}
