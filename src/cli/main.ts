import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { Config } from '../config.js';
import { AppError } from '../kernel/errors.js';
import { COMMANDS } from './commands.js';
import { formatCommandHelp, formatGroup, formatOverview, unknownCommandMessage, unknownOptionMessage } from './help.js';
import type { CliIo, Command, CommandContext } from './io.js';
import { UsageError, optionsOf } from './io.js';

/** The command whose words start `argv`, or undefined. */
function findCommand(argv: readonly string[]): Command | undefined {
  return COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
}

/**
 * Runs the CLI and returns its exit code: 0 on success, 1 when the command
 * failed, 2 for a malformed command line. Errors go to stderr. `--help` (or
 * `-h`) anywhere among a command's options prints its usage instead.
 */
export async function runCli(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h') {
    io.out(formatOverview(COMMANDS));
    return first === undefined ? 2 : 0;
  }
  const entry = findCommand(argv);
  if (!entry) {
    const words = argv.slice(0, 2).filter((word) => !word.startsWith('-'));
    const group = COMMANDS.some((c) => c.path.length > 1 && c.path[0] === first);
    if (group && (argv[1] === '--help' || argv[1] === '-h')) {
      io.out(formatGroup(first, COMMANDS));
      return 0;
    }
    io.err(`netgraph: ${unknownCommandMessage(words, COMMANDS)}\n\n${group ? formatGroup(first, COMMANDS) : formatOverview(COMMANDS)}`);
    return 2;
  }
  try {
    const parsed = parseCommandLine(entry, argv.slice(entry.path.length));
    if (parsed.values.help === true) {
      io.out(formatCommandHelp(entry));
      return 0;
    }
    let config: Config | undefined;
    const context: CommandContext = {
      values: parsed.values,
      repeated: parsed.repeated ?? {},
      positionals: parsed.positionals,
      io,
      // read when a command first needs it: help and completion work whatever the environment holds
      get config() {
        return (config ??= loadConfig(env));
      },
    };
    return await entry.run(context);
  } catch (error) {
    return report(error, io, entry.path.join(' '));
  }
}

/**
 * The command line after the command's words: options and positionals, or
 * UsageError for an unknown option (naming the closest valid one) and
 * node:util's parse error for a malformed one. --help wins over both.
 */
function parseCommandLine(command: Command, args: readonly string[]): Pick<CommandContext, 'values' | 'repeated'> & { positionals: string[] } {
  const options = Object.fromEntries(optionsOf(command).map(([name, option]) => [name, { type: option.type, ...(option.short ? { short: option.short } : {}), ...(option.multiple ? { multiple: true } : {}) }]));
  const { tokens } = parseArgs({ args: [...args], options, allowPositionals: true, strict: false, tokens: true });
  const named = tokens.flatMap((token) => (token.kind === 'option' ? [token] : []));
  if (named.some((token) => token.name === 'help')) return { values: { help: true }, repeated: {}, positionals: [] };
  const unknown = named.find((token) => !(token.name in options));
  if (unknown) throw new UsageError(unknownOptionMessage(command, unknown.rawName));
  const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  // a repeatable option's values go to `repeated`; `values` keeps the last, so every command reads a string
  const values: Record<string, string | boolean | undefined> = {};
  const repeated: Record<string, readonly string[]> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (Array.isArray(value)) {
      repeated[name] = value.map(String);
      values[name] = value.at(-1);
    } else values[name] = value;
  }
  return { values, repeated, positionals: parsed.positionals };
}

function report(error: unknown, io: CliIo, command: string): number {
  if (error instanceof ConfigError) {
    io.err(`netgraph: ${error.message}`);
    return 1;
  }
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
    io.err(`netgraph ${command}: ${error.message}\nRun "netgraph ${command} --help" for its usage.`);
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
