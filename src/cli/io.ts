import fs from 'node:fs';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

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
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: readonly string[];
  readonly config: Config;
  readonly io: CliIo;
}

/** A CLI command: its words, its options, and what it does; returns the exit code. */
export interface Command {
  readonly path: readonly string[];
  readonly options: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  run(context: CommandContext): Promise<number>;
}

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
