// Child processes of the load-balancer topology (netgraph, HAProxy, Redis,
// PostgreSQL): started, waited for, stopped. Shared by `npm run chaos` and the
// load-balancer test, so both run exactly the same topology.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The repository's root (where bin/netgraph.js is). */
export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once a TCP connection to 127.0.0.1:`port` succeeds; rejects after `timeoutMs`. */
export async function waitForPort(port, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Waits `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Spawns a long-running child whose output goes to `logFile` (appended, so a
 * restarted process keeps one log). Returns the child and a promise of its exit.
 */
export function spawnLogged(command, args, { env = process.env, logFile, cwd = ROOT } = {}) {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return { child, exited };
}

/** Runs a command to its end; resolves with its stdout, rejects with its output when it fails. */
export function run(command, args, { env = process.env, cwd = ROOT } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${stdout}${stderr}`))));
  });
}

/**
 * A `netgraph serve` process on a fixed port (so a restarted one takes the
 * same place behind the load balancer), started from the built dist/.
 */
export function createNetgraphProcess({ name, port, env, logFile }) {
  let current;
  return {
    name,
    port,
    /** Starts it and resolves once it listens. */
    async start() {
      current = spawnLogged(process.execPath, ['bin/netgraph.js', 'serve', '--port', String(port)], { env, logFile });
      await Promise.race([waitForPort(port, 30_000), current.exited.then((code) => Promise.reject(new Error(`${name} exited (${code}); see ${logFile}`)))]);
    },
    /** Sends `signal` and resolves with the exit code (or signal) once it has exited. */
    async stop(signal = 'SIGTERM') {
      if (!current) return undefined;
      const { child, exited } = current;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      current = undefined;
      return result;
    },
    running: () => current !== undefined,
  };
}

/** A redis-server of our own on `port`, keeping nothing on disk; stop() and start() again as often as needed. */
export function createRedis({ port, logFile }) {
  let current;
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      current = spawnLogged('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { logFile });
      await waitForPort(port);
    },
    async stop() {
      if (!current) return;
      current.child.kill('SIGTERM');
      await current.exited;
      current = undefined;
    },
  };
}

/** True when `file` exists and is executable. */
export function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
