import fs from 'node:fs';
import type { Config } from '../config.js';
import { AppError } from '../kernel/errors.js';

// What commands, their runner and `serve` share; commands.ts and serve.ts both import it, never each other.

/** Where a command writes: stdout and stderr, one call per line block. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  /** True when stdin is a pipe or a file, not a terminal; absent means not piped. */
  stdinIsPiped?(): boolean;
}

/** What a command receives: parsed options and positionals, the config, the io. */
export interface CommandContext {
  /** Each option's value; for a repeatable one, the last given. */
  readonly values: Record<string, string | boolean | undefined>;
  /** Every value of each repeatable option given, in order (OptionSpec.multiple). */
  readonly repeated?: Readonly<Record<string, readonly string[]>>;
  readonly positionals: readonly string[];
  readonly config: Config;
  readonly io: CliIo;
}

/**
 * One option of a command, declared once: the parser, `--help`, the
 * unknown-option suggestion and the shell completion scripts all read it.
 */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** What it does, in a few words (lowercase, no full stop). */
  readonly description: string;
  /** The name of its value in usage lines, e.g. SLUG or N (string options). */
  readonly value?: string;
  /** What applies when it is absent, as shown by --help; omitted for required options. */
  readonly default?: string;
  /** Whether the command refuses to run without it. */
  readonly required?: boolean;
  /** Its only accepted values, offered by completion. */
  readonly choices?: readonly string[];
  /** Completion offers file names for its value. */
  readonly file?: boolean;
  /** It may be given more than once; its value is then the list of them (string options). */
  readonly multiple?: boolean;
}

/** The positional arguments of a command, e.g. FILE or ID. */
export interface OperandSpec {
  /** As shown in usage lines, e.g. "FILE" or "[COMMAND]". */
  readonly usage: string;
  readonly description: string;
  /** Its only accepted values, offered by completion. */
  readonly choices?: readonly string[];
  /** What completion offers besides choices: file names, or the words of commands. */
  readonly complete?: 'file' | 'command';
}

/** A CLI command: its words, what it is for, its options and examples, and what it does; `run` returns the exit code. */
export interface Command {
  readonly path: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  readonly operands?: OperandSpec;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Command lines that work as typed (against a database with the demo company). */
  readonly examples: readonly string[];
  run(context: CommandContext): Promise<number>;
}

/** Thrown for a malformed command line; the CLI exits 2 and points to the command's --help. */
export class UsageError extends Error {}

/** The process's own stdout, stderr and stdin. */
export function createProcessIo(): CliIo {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdinIsPiped() {
      try {
        const stat = fs.fstatSync(0);
        // a terminal or /dev/null is a character device: nothing was piped in
        return stat.isFIFO() || stat.isFile() || stat.isSocket();
      } catch {
        return false;
      }
    },
  };
}

/** The value of a required string option; BAD_USER_INPUT with an example when it is missing. */
export function required(context: CommandContext, name: string, example: string): string {
  const value = context.values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError('BAD_USER_INPUT', `--${name} is required, e.g. --${name} ${example}`);
  }
  return value;
}

/** Writes a value as indented JSON (the --json output). */
export function printJson(io: CliIo, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** Writes rows as a table with a header, each column as wide as its widest cell. */
export function printTable(io: CliIo, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  io.out([line(header), ...rows.map(line)].join('\n'));
}

/** The options every command takes, besides its own. */
export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json: { type: 'boolean', description: 'print JSON meant for scripts instead of text', default: 'off' },
  help: { type: 'boolean', short: 'h', description: 'print this help and exit' },
};

/** A command's options with the common ones (--json, --help) last. */
export function optionsOf(command: Command): [string, OptionSpec][] {
  return Object.entries({ ...command.options, ...COMMON_OPTIONS });
}
