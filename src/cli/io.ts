import fs from 'node:fs';
import type { Config } from '../config.js';

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
