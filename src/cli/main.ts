import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { COMMANDS } from './commands.js';
import type { CliIo } from './io.js';

const USAGE = `Usage: netgraph <command> [options]

Commands:
  serve [--port N] [--host H] [--workers N]     run the API server (also: npm start)
  migrate                                       apply pending database migrations
  import FILE                                   load a JSON file in the import format (- for stdin), all or nothing
  export [--company SLUG] [--output FILE]       write the import format (all companies, or one)
  company create --slug S --name N [--website-domain D] [--customer true|false]
                                                create a company (a customer unless --customer false)
  keys create --company SLUG --label L [--scope read|read_write|ingest]
                                                create an API key; its value is printed once
  keys list --company SLUG                      list a company's API keys
  keys revoke ID                                revoke an API key at once
  users create --company SLUG --email E --role admin|member
                                                create a dashboard user; the password is read from
                                                stdin when piped, else generated and printed once
  users list --company SLUG                     list a company's dashboard users
  audit list [--company SLUG] [--since TIME]    who changed what, oldest first (TIME: RFC 3339)
  simulate [--company SLUG] [--interval SECONDS] [--seed N] [--url URL --key KEY] [--backfill DURATION]
                                                the company's (or every company's) devices post simulated
                                                reports: history first (DURATION: 30m, 24h, 7d), then live

Every command takes --json for output meant for scripts.
Configuration comes from the environment (DATABASE_URL, PORT, HOST, LOG_LEVEL, ...): see README.md.`;

/** Thrown for a malformed command line; exits 2 with the usage. */
export class UsageError extends Error {}

/**
 * Runs the CLI and returns its exit code: 0 on success, 1 when the command
 * failed, 2 for a malformed command line. Errors go to stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    io.out(USAGE);
    return first === undefined ? 2 : 0;
  }
  const entry = COMMANDS.find((c) => c.path[0] === first && (c.path.length === 1 || c.path[1] === second));
  if (!entry) {
    io.err(`netgraph: unknown command "${[first, second].filter(Boolean).join(' ')}".\n\n${USAGE}`);
    return 2;
  }
  const rest = argv.slice(entry.path.length);
  let config: Config;
  try {
    const parsed = parseArgs({
      args: [...rest],
      options: { json: { type: 'boolean' }, ...entry.options } as ParseArgsConfig['options'],
      allowPositionals: true,
      strict: true,
    });
    config = loadConfig(env);
    return await entry.run({ values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals, config, io });
  } catch (error) {
    return report(error, io, entry.path.join(' '));
  }
}

function report(error: unknown, io: CliIo, command: string): number {
  if (error instanceof ConfigError) {
    io.err(`netgraph: ${error.message}`);
    return 1;
  }
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
    io.err(`netgraph ${command}: ${error.message}\nRun "netgraph help" for usage.`);
    return 2;
  }
  if (error instanceof AppError) {
    io.err(`netgraph ${command}: ${error.message}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.err(`netgraph ${command}: unexpected error: ${message}`);
  return 1;
}
