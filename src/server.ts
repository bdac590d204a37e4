import http from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { redactUrl } from './config.js';
// the report protocol's compiled check, loaded lazily by the report service (report.service.ts), loaded here at start so no first report waits for it
import './ingest/report.parse.js';
import { migrateToLatest } from './db/migrate.js';
import type { ReplicaState, Store } from './db/store.js';
import { generateDemoDataset } from './tools/demo/dataset.js';
import { isAppError } from './kernel/errors.js';
import type { Actor } from './kernel/caller.js';
import { GRAPHQL_PATH } from './http/routes/graphql.route.js';
import { createMetrics } from './observability/metrics.js';
import type { Metrics, MetricsOptions } from './observability/metrics.js';
import { startReportTasks } from './ingest/report.tasks.js';
import { startWebhookTasks } from './features/webhook/webhook.tasks.js';
import { DEMO_INTERVAL_SECONDS, startDemoSimulator } from './tools/demo/demo-simulator.js';
import type { DemoSimulator, DemoSimulatorOptions } from './tools/demo/demo-simulator.js';
import { openRuntime } from './runtime.js';
import type { Services } from './services.js';

/** A started server and how to stop it. */
export interface RunningServer {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly services: Services;
  readonly url: string;
  /** Settles when migrations (and the first-start demo load) are done; rejects when they cannot be. */
  readonly prepared: Promise<void>;
  /** Stops accepting, finishes in-flight requests, closes the store. */
  close(): Promise<void>;
}

const MIGRATION_RETRY_MS = 2_000;
/**
 * The PostgreSQL statement timeout is a backstop behind the request timeout,
 * which cancels a request's statement itself: it catches statements of
 * requests that could not cancel theirs.
 */
const STATEMENT_TIMEOUT_MARGIN_MS = 5_000;

/** How a server is started beyond its config; tests pass a clock of their own. */
export interface ServerOptions {
  readonly clock?: () => number;
  /**
   * Knobs of the demo simulator (which runs with DEMO_DATA and DEMO_SIMULATOR
   * on): tests shorten its interval and its clock polling.
   */
  readonly demoSimulator?: Pick<DemoSimulatorOptions, 'intervalSeconds' | 'pollMs'>;
  /** The process's logger (netgraph serve passes its asynchronous one); buildApp's default otherwise. */
  readonly logger?: FastifyBaseLogger;
  /** Set in a worker of `netgraph serve --workers N`: its /metrics answers for all workers. */
  readonly clusterWorker?: MetricsOptions['clusterWorker'];
  /**
   * False: no background work (report tasks, webhook dispatch and delivery,
   * demo simulator). Tests that count a request's statements against the
   * store's total, or hold the pool to one connection, turn it off; a server
   * always runs it.
   */
  readonly backgroundWork?: boolean;
}
/** Says once, at start, that EMAIL targets exist but no SMTP server does: their alerts are not sent (and not queued to fail). */
function warnOfUnsentEmail(services: Services, log: FastifyInstance['log']): void {
  services.webhookWork.dispatcher.unsentEmailTargets().then(
    (count) => {
      if (count > 0) log.warn(`SMTP_URL is unset: ${count} EMAIL target${count === 1 ? '' : 's'} of alert receivers receive no alerts until it is set (docs/alerts.md#email)`);
    },
    (error: unknown) => log.warn({ err: error }, 'could not count EMAIL targets'),
  );
}

/**
 * Whether the demo company's devices report from inside the server: on every
 * start (not only the first) with DEMO_DATA and DEMO_SIMULATOR on, as long as
 * the demo company exists. DEMO_DATA=off (production) turns it off too, so a
 * real company that happens to be called "acme" never gets simulated reports.
 */
export function runsDemoSimulator(config: Config): boolean {
  return config.demoData && config.demoSimulator;
}

/** Who the audit log says loaded the demo company, its key and its admin. */
const FIRST_START_ACTOR: Actor = { type: 'cli', id: null, label: 'netgraph serve (first start)' };
/** The demo company's admin, created with a generated password on a first start. */
export const DEMO_ADMIN_EMAIL = 'admin@acme.example';

/**
 * Opens the store, applies migrations, loads the demo company on a first
 * start, and listens. When the database is not reachable yet, the server
 * listens anyway (answering 503) and keeps retrying in the background.
 */
export async function startServer(
  config: Config,
  print: (line: string) => void = console.log,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const runtime = await openRuntime(
    config,
    {
      poolSize: config.databasePoolSize,
      readBatchBudgetMs: config.readBatchBudgetMs,
      statementTimeoutMs: config.requestTimeoutMs + STATEMENT_TIMEOUT_MARGIN_MS,
      ...(config.readReplica === null ? {} : { readReplica: config.readReplica }),
    },
    options.clock,
  );
  const { store, services } = runtime;
  const metrics = createMetrics(store, options.clusterWorker ? { clusterWorker: options.clusterWorker } : {});
  const app = await buildApp({ config, store, services, metrics, ...(options.clock ? { clock: options.clock } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  const metricsServer = config.metricsPort === null ? undefined : await listenMetrics(metrics, config.metricsPort, config.metricsHost);
  services.apiKeys.start((error) => app.log.warn({ err: error }, 'could not record API key last-used times; will retry'));
  if (options.backgroundWork !== false) {
    services.requestLog.start((lost, error) => app.log.warn({ err: error, lost }, `could not write ${lost} requests to the API request log; they are lost (the requests themselves were answered)`));
  }
  store.replica?.onChange((state, error) => logReplicaChange(app.log, state, error));

  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let listened: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (listened = resolve));
  const printListening = holdUntil(listening, print);
  const prepare = async (): Promise<void> => {
    try {
      await prepareDatabase(store, services, config, printListening);
    } catch (error) {
      if (stopped || !isAppError(store.classifyError(error), 'SERVICE_UNAVAILABLE')) throw error;
      app.log.warn(`database ${redactUrl(config.databaseUrl)} is unavailable; retrying in ${MIGRATION_RETRY_MS} ms`);
      await new Promise<void>((resolve) => {
        retry = setTimeout(resolve, MIGRATION_RETRY_MS);
      });
      if (!stopped) return prepare();
    }
  };
  // the first attempt is awaited so a first start is seeded before the port opens; retries run in the background
  const prepared = prepare();
  const background = startBackgroundWork(prepared, listening, { config, store, services, log: app.log, options });
  await Promise.race([prepared, new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);

  try {
    await app.listen({ port: config.port, host: config.host });
  } finally {
    // a key shown only once is shown even when the port cannot be opened
    listened();
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  return {
    app,
    store,
    services,
    url,
    prepared,
    async close() {
      stopped = true;
      if (retry) clearTimeout(retry);
      listened();
      await background.stop();
      await drainAndClose(app, config.drainDelayMs);
      await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
      await runtime.close();
    },
  };
}

/**
 * Once the database is prepared, starts the report tasks (offline check,
 * retention, planner statistics) and the webhook tasks (dispatch, delivery), and once the server also listens, the demo simulator when it
 * runs: its backfill is background work that never delays the first
 * request. Returns how to stop both and wait for their work in progress.
 */
function startBackgroundWork(
  prepared: Promise<void>,
  listening: Promise<void>,
  deps: { config: Config; store: Store; services: Services; log: FastifyInstance['log']; options: ServerOptions },
): { stop(): Promise<void> } {
  const { config, store, services, log, options } = deps;
  let stopped = false;
  let stopReportTasks: (() => Promise<void>) | undefined;
  let stopWebhookTasks: (() => Promise<void>) | undefined;
  let demo: DemoSimulator | undefined;
  prepared.then(
    async () => {
      if (stopped || options.backgroundWork === false) return;
      stopReportTasks = startReportTasks(services.reports, config.ingest.offlineAfterSeconds, log, services.requestLog, store);
      stopWebhookTasks = startWebhookTasks(services.webhookWork, config.ingest.eventRetentionDays, log);
      warnOfUnsentEmail(services, log);
      await listening;
      if (stopped || !runsDemoSimulator(config)) return;
      demo = startDemoSimulator({ services, database: config.database, log, ...options.demoSimulator, ...(options.clock ? { now: options.clock } : {}) });
    },
    () => undefined,
  );
  return {
    async stop() {
      stopped = true;
      await demo?.stop();
      await stopReportTasks?.();
      await stopWebhookTasks?.();
    },
  };
}

/** One log line per change of where the API's queries read: the replica, or the primary and why. */
function logReplicaChange(log: FastifyInstance['log'], state: ReplicaState, error: unknown): void {
  const fields = { readTarget: state.target, reason: state.reason, lagMs: state.lagMs, ...(error === undefined ? {} : { err: error }) };
  if (state.target === 'replica') log.info(fields, 'read replica in use: the API\'s queries read from it');
  else if (state.reason === 'lagging') log.warn(fields, `read replica is ${state.lagMs} ms behind, past READ_REPLICA_MAX_LAG_MS: the API's queries read the primary`);
  else log.warn(fields, 'read replica unavailable: the API\'s queries read the primary until it answers');
}

/** How long connections that look idle are left open after shutdown starts, for requests already on their way. */
const DRAIN_GRACE_MS = 1_000;

/**
 * Starts draining (/readyz answers 503, every response closes its
 * connection), keeps accepting for `delayMs` so a load balancer takes the
 * process out of rotation first, then stops accepting and waits for in-flight
 * requests. Closing the port at once would reset the connections a balancer
 * opened meanwhile that still wait in the kernel's accept queue, with their
 * requests already sent: the balancer cannot safely retry those.
 * Requests that arrive on open keep-alive connections meanwhile are still
 * served; connections still idle after a grace period are closed. Closing
 * idle sockets at once would reset requests whose bytes arrived but were not
 * parsed yet (for instance while a synchronous SQLite query ran).
 */
async function drainAndClose(app: FastifyInstance, delayMs: number): Promise<void> {
  app.startDraining();
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  let timer: NodeJS.Timeout | undefined;
  const closeIdle = () => {
    app.server.closeIdleConnections();
    timer = setTimeout(closeIdle, DRAIN_GRACE_MS / 4);
  };
  timer = setTimeout(closeIdle, DRAIN_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

/** Serves GET /metrics on a port of its own, away from the public API port. */
async function listenMetrics(metrics: Metrics, port: number, host: string): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/**
 * A print that holds its lines until `ready` settles, then prints them in
 * order and every later line at once: the first start's curl command is
 * printed when the port it names already answers.
 */
export function holdUntil(ready: Promise<unknown>, print: (line: string) => void): (line: string) => void {
  let held: string[] | undefined = [];
  const release = () => {
    const lines = held ?? [];
    held = undefined;
    for (const line of lines) print(line);
  };
  ready.then(release, release);
  return (line) => (held ? held.push(line) : print(line));
}

/** Applies migrations and, when enabled, loads the demo company on a first start. */
export async function prepareDatabase(
  store: Store,
  services: Services,
  config: Config,
  print: (line: string) => void,
): Promise<void> {
  await migrateToLatest(store);
  // PostgreSQL: today's partitions of the raw series exist before the first report arrives
  await services.reports.preparePartitions();
  await services.requestLog.preparePartitions();
  if (config.demoData) await loadDemoOnFirstStart(services, config, print);
}

/**
 * On a first start (no company yet) loads the demo company and prints a key
 * for it once, with a curl command that works as pasted, then the dashboard's
 * address and a demo admin's login, also once.
 */
async function loadDemoOnFirstStart(services: Services, config: Config, print: (line: string) => void): Promise<void> {
  if (!(await services.companies.isEmpty())) return;
  try {
    await services.imports.import(generateDemoDataset(), FIRST_START_ACTOR);
  } catch (error) {
    // another process seeded the store at the same moment
    if (isAppError(error, 'BAD_USER_INPUT', 'CONFLICT')) return;
    throw error;
  }
  const key = await services.apiKeys.create({ companySlug: 'acme', label: 'demo key (created on first start)' }, FIRST_START_ACTOR);
  const admin = await services.users.create({ companySlug: 'acme', email: DEMO_ADMIN_EMAIL, role: 'admin' }, FIRST_START_ACTOR);
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  const query = JSON.stringify({ query: '{ companyBySlug(slug: "acme") { name networks { label slug isActive } } }' });
  print(
    [
      '',
      'netgraph: first start. Loaded the demo company "Acme Networks" (slug: acme).',
      '',
      `  API key (shown only this once, store it now): ${key.key}`,
      '',
      '  Try it:',
      `  curl -s ${base}${GRAPHQL_PATH} \\`,
      `    -H 'Authorization: Bearer ${key.key}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '${query}'`,
      '',
    ].join('\n'),
  );
  print(
    [
      `  Dashboard: ${base}/`,
      `  Sign in as ${admin.user.email} with the password ${admin.generatedPassword ?? ''} (shown only this once;`,
      `  add users with: npx netgraph users create --company acme --email you@example.com --role admin)`,
      '',
    ].join('\n'),
  );
  if (runsDemoSimulator(config)) {
    print(
      `  The demo network is live: its devices report every ${DEMO_INTERVAL_SECONDS} seconds from inside netgraph, after a day of history.\n` +
        '  Stop that with DEMO_SIMULATOR=off.\n',
    );
  }
}
