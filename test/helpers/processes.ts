import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { UNREACHABLE_LIMITS } from './app.js';
import { ROOT } from './cli.js';

/** A `netgraph serve` child process and what it printed. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts `bin/netgraph.js serve [args]` with `env` and waits until it listens
 * (or `waitFor` appears). `launcher` is the command that runs it: node, and
 * whatever goes before (stdbuf) or after it (Node's own flags).
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = [],
  waitFor = 'listening',
  [command, ...before]: [string, ...string[]] = [process.execPath],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(command, [...before, 'bin/netgraph.js', 'serve', '--port', String(port), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', DEMO_DATA: 'off', ...UNREACHABLE_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 300 && !output.includes(waitFor); i++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!output.includes(waitFor)) {
    // a test that fails here must not leave the server running after it
    child.kill('SIGKILL');
    throw new Error(`server did not print "${waitFor}":\n${output}`);
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * A TCP proxy in front of a server (PostgreSQL here), that a test can cut and
 * restore to make the database disappear and come back under a running app.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const open = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  const cut = async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  };
  return { port, open, cut };
}
