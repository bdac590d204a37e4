import cluster from 'node:cluster';
import type { Config } from '../config.js';
import { LOG_LEVELS } from '../config.js';
import { startDemoSimulator } from '../tools/demo/demo-simulator.js';
import type { DemoSimulator, DemoSimulatorLog } from '../tools/demo/demo-simulator.js';
import { holdUntil, prepareDatabase, runsDemoSimulator, startServer } from '../server.js';
import type { ServerOptions } from '../server.js';
import { serveClusterMetrics } from '../observability/cluster-metrics.js';
import { turnOffPretenuring } from '../observability/gc.js';
import { createProcessLog, exitOnCrash } from '../observability/log.js';
import { openRuntime } from '../runtime.js';
import type { Runtime } from '../runtime.js';
import type { CommandContext } from './io.js';
import { integerOption } from './options.js';
import { sqliteDriverFor } from '../db/sqlite-driver.js';

const MAX_WORKERS = 64;

/**
 * `netgraph serve`: one process by default; with --workers N, a primary that
 * migrates once and N worker processes sharing the port (node:cluster), each
 * a full stateless server. SIGTERM and SIGINT drain in-flight requests and
 * exit 0.
 */
export async function serve(context: CommandContext): Promise<number> {
  // in every process that serves requests: a primary's workers run this too
  turnOffPretenuring();
  const port = integerOption(context.values.port, 'port', 0, 65535);
  const workers = integerOption(context.values.workers, 'workers', 1, MAX_WORKERS) ?? 1;
  const config: Config = Object.freeze({
    ...context.config,
    ...(port !== undefined ? { port } : {}),
    ...(typeof context.values.host === 'string' ? { host: context.values.host } : {}),
  });
  if (workers > 1 && cluster.isPrimary) return runPrimary(config, workers, context);
  if (!cluster.isWorker) return runSingle(config, context);
  // the primary loaded the demo company and runs its simulator, and gathers the workers' metrics
  const code = await runSingle({ ...config, demoData: false }, context, { clusterWorker: { id: cluster.worker?.id ?? 0 } });
  // the IPC channel to the primary would keep a drained worker alive forever
  process.disconnect?.();
  return code;
}

/**
 * One server process: its log asynchronous (written in the background, every
 * line written before the process ends: on shutdown, and on a crash, which
 * exits 1), the server, and the graceful shutdown on SIGTERM and SIGINT.
 */
async function runSingle(config: Config, context: CommandContext, options: ServerOptions = {}): Promise<number> {
  const log = createProcessLog(config.logLevel);
  const stopCrashHandler = exitOnCrash(log);
  try {
    return await serveUntilSignal(config, context, { ...options, logger: log.logger });
  } finally {
    stopCrashHandler();
    await log.close();
  }
}

async function serveUntilSignal(config: Config, context: CommandContext, options: ServerOptions): Promise<number> {
  const server = await startServer(config, (line) => context.io.out(line), options);
  const store = config.database.dialect === 'sqlite' ? `sqlite store, ${sqliteDriverFor()} driver` : `${config.database.dialect} store`;
  server.app.log.info(`netgraph listening on ${server.url} (${store})`);
  return new Promise<number>((resolve) => {
    let closing = false;
    const shutdown = (signal: string) => {
      if (closing) return;
      closing = true;
      server.app.log.info(`${signal}: finishing in-flight requests, then exiting`);
      const force = setTimeout(() => {
        server.app.log.error(`in-flight requests did not finish within ${config.shutdownTimeoutMs} ms; exiting`);
        resolve(1);
      }, config.shutdownTimeoutMs);
      force.unref();
      server.close().then(
        () => {
          clearTimeout(force);
          resolve(0);
        },
        (error: unknown) => {
          server.app.log.error({ err: error }, 'error while shutting down');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
    server.prepared.catch((error: unknown) => {
      server.app.log.fatal({ err: error }, 'could not prepare the database; exiting');
      void server.close().finally(() => resolve(1));
    });
  });
}

/**
 * The demo simulator of a `--workers` server runs in its primary, so exactly
 * one process of the server runs it whatever the number of workers (on
 * PostgreSQL its advisory lock also keeps other servers on the same database
 * from running a second one). Its runtime stays open until the primary ends.
 */
async function startPrimaryDemo(config: Config, context: CommandContext): Promise<{ runtime: Runtime; demo: DemoSimulator } | undefined> {
  if (!runsDemoSimulator(config)) return undefined;
  const runtime = await openRuntime(config, { poolSize: 2 });
  return { runtime, demo: startDemoSimulator({ services: runtime.services, database: config.database, log: primaryLog(config, context) }) };
}

/** The primary has no request logger: its few lines go to stderr, at the configured level. */
function primaryLog(config: Config, context: CommandContext): DemoSimulatorLog {
  const shows = (level: 'info' | 'warn') => LOG_LEVELS.indexOf(config.logLevel) >= LOG_LEVELS.indexOf(level);
  return {
    info: (message) => (shows('info') ? context.io.err(`netgraph: ${message}`) : undefined),
    warn: (details, message) => (shows('warn') ? context.io.err(`netgraph: ${message} ${JSON.stringify(details, errorFields)}`) : undefined),
  };
}

/** JSON.stringify's replacer that keeps an Error's message. */
function errorFields(_key: string, value: unknown): unknown {
  return value instanceof Error ? { message: value.message } : value;
}

async function runPrimary(config: Config, workers: number, context: CommandContext): Promise<number> {
  // migrate and seed once, in the primary, before any worker starts; a first start's key and curl command are
  // printed once a worker listens (or one ends first, or the primary stops: a key shown only once is always shown)
  let released: () => void = () => undefined;
  const firstWorkerUp = new Promise<void>((resolve) => (released = resolve));
  cluster.once('listening', () => released());
  cluster.once('exit', () => released());
  const runtime = await openRuntime(config, { poolSize: 1 });
  try {
    await prepareDatabase(runtime.store, runtime.services, config, holdUntil(firstWorkerUp, (line) => context.io.out(line)));
  } finally {
    await runtime.close();
  }
  const demo = await startPrimaryDemo(config, context);

  let stopping = false;
  const env = { NETGRAPH_WORKERS: String(workers) };
  serveClusterMetrics();
  for (let i = 0; i < workers; i++) cluster.fork(env);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    context.io.err(`netgraph: worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    cluster.fork(env);
  });
  context.io.err(`netgraph: primary ${process.pid} started ${workers} workers on port ${config.port}`);
  const code = await new Promise<number>((resolve) => {
    const shutdown = () => {
      if (stopping) return;
      stopping = true;
      const alive = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
      let remaining = alive.length;
      if (remaining === 0) resolve(0);
      let failed = false;
      for (const worker of alive) {
        worker.once('exit', (code) => {
          failed ||= code !== 0;
          remaining -= 1;
          if (remaining === 0) resolve(failed ? 1 : 0);
        });
        worker.process.kill('SIGTERM');
      }
    };
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
  });
  released();
  await demo?.demo.stop();
  await demo?.runtime.close();
  return code;
}
