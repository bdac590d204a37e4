import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/netgraph.js', import.meta.url));

/** What a finished command printed, and its exit code. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Starts the real `netgraph` command (the built dist/, as a user runs it) in
 * a child process with the given environment and optional stdin; `result`
 * resolves when it exits.
 */
export function startNetgraph(args: readonly string[], env: Record<string, string>, stdin?: string): { child: ChildProcess; result: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const result = outputOf(child);
  child.stdin?.end(stdin ?? '');
  return { child, result };
}

/** What a child process (started with piped stdout and stderr) prints, and its exit code, once it exits. */
export function outputOf(child: ChildProcess): Promise<CliResult> {
  return new Promise<CliResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the real `netgraph` command to its end; see startNetgraph. */
export function runNetgraph(args: readonly string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return startNetgraph(args, env, stdin).result;
}

/** SIGTERM, then what the collector printed once it exited; SIGKILL and an error with its output when it has not exited within 15 s. */
export async function stopNetgraph(child: ChildProcess, result: Promise<CliResult>): Promise<CliResult> {
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      void result.then((r) => reject(new Error(`the collector did not stop within 15 s of SIGTERM; it printed:\n${r.stderr.slice(-3000)}`)));
    }, 15_000);
  });
  try {
    return await Promise.race([result, late]);
  } finally {
    clearTimeout(timer);
  }
}
