import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from './config.js';
import { isMigrated } from './db/migrate.js';
import type { Store } from './db/store.js';
import { AppError, ERROR_CODES } from './kernel/errors.js';
import { DocumentCache } from './engine/document.js';
import { createGraphQLEndpoint, isPlainGraphQLRequest } from './http/routes/graphql.endpoint.js';
import { createExecutor } from './engine/execute.js';
import { createMutationExecutor } from './engine/mutate.js';
import { createGraphQLAdmission } from './http/routes/graphql.pipeline.js';
import { GRAPHQL_PATH, registerGraphQLRoutes } from './http/routes/graphql.route.js';
import { createSchema, printSchemaReference } from './engine/schema.js';
import { JSON_TYPE, sendAnswer } from './http/answer.js';
import { parseJsonBody, useJsonParser } from './http/json-body.js';
import { BODY_LIMIT_BYTES } from './http/body-errors.js';
import { clientAddress } from './http/client-address.js';
import { answerForAppError, answerForError, warnWhenUnavailable } from './http/error-answer.js';
import { lingerOnUnreadBody } from './http/lingering-close.js';
import { keyRequest, requestLine } from './http/request-log.js';
import { notFound } from './http/meter-answers.js';
import { answerClientError, answerOnSocket } from './http/socket-answers.js';
import { createMetrics } from './observability/metrics.js';
import { logRequest } from './observability/log.js';
import type { Metrics } from './observability/metrics.js';
import { registerReportRoutes } from './http/routes/reports.route.js';
import { createLimitsService } from './platform/limits/limits.service.js';
import type { Services } from './services.js';
import { registerDashboard } from './dashboard/dashboard.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** From now on every response closes its connection, so keep-alive clients move to another server. */
    startDraining(): void;
  }
}

/** Fastify's default: longer than the idle timeouts of common proxies and load balancers. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** What an app is built from. Tests build one per store and inject or listen on port 0. */
export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly services: Services;
  /** The process's metrics; buildApp creates them when not given. */
  readonly metrics?: Metrics;
  /** The clock of the rate limits, in ms since the epoch; tests pass their own. */
  readonly clock?: () => number;
  /** The process's logger (`netgraph serve`: asynchronous, observability/log.ts); pino on stdout at LOG_LEVEL, synchronous, when not given. */
  readonly logger?: FastifyBaseLogger;
}

/**
 * Builds the HTTP app without starting it: the API, the web dashboard at `/`,
 * error mapping, request ids, and one structured log line per request (never
 * with a key, password or session token).
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store, services } = deps;
  const metrics = deps.metrics ?? createMetrics(store);
  // POST /api/v1/graphql with a JSON body is answered on bare node:http (graphql/endpoint.ts), the rest by Fastify
  const bare: { graphql?: (request: IncomingMessage, response: ServerResponse) => void } = {};
  const app = Fastify({
    serverFactory: (fastifyHandler) => {
      const server = http.createServer((request, response) => {
        if (bare.graphql !== undefined && isPlainGraphQLRequest(request)) bare.graphql(request, response);
        else fastifyHandler(request, response);
      });
      // what Fastify sets on a server it creates itself
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.requestTimeout = config.requestTimeoutMs;
      server.setTimeout(config.requestTimeoutMs + 5_000);
      return server;
    },
    ...(deps.logger === undefined ? { logger: { level: config.logLevel } } : { loggerInstance: deps.logger }),
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    // drain instead: requests that reach an open connection while closing are served (with
    // Connection: close), and server.ts closes idle connections only after a grace period
    return503OnClosing: false,
    forceCloseConnections: false,
    trustProxy: config.trustProxy,
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    // a URL that does not decode (e.g. "/%ZZ") never reaches a route
    frameworkErrors: (_error, request, reply) => {
      // answered outside the routes, whose onSend hook lingers: a body still arriving is read and thrown away here too
      lingerOnUnreadBody(request.raw, reply.raw);
      // the reply's generics are those of a route that does not exist; it is an ordinary reply
      void sendAnswer(reply as unknown as FastifyReply, answerForAppError(new AppError('BAD_REQUEST', 'The URL is not valid: it does not decode.')));
    },
    clientErrorHandler: answerClientError,
  });

  // every answer to an error classifies it here, so one place warns of the database being unavailable
  const classifyError = warnWhenUnavailable((error) => store.classifyError(error), app.log);
  // Node hands CONNECT to this event and, with no listener, drops the connection without a word
  app.server.on('connect', (_request: unknown, socket: Duplex) => answerOnSocket(socket, new AppError('METHOD_NOT_ALLOWED', 'CONNECT is not allowed here: send the GraphQL request with POST.')));
  // the API takes JSON only: without this, Fastify's built-in text/plain parser would accept a string body
  app.removeContentTypeParser('text/plain');
  // bounded nesting, and a 400 that names a prototype key (docs/limits.md)
  useJsonParser(app, parseJsonBody);
  app.decorateRequest('netgraph', null as never);
  let draining = false;
  app.decorate('startDraining', () => {
    draining = true;
  });
  app.addHook('onSend', async (request, reply) => {
    if (draining) reply.header('connection', 'close');
    // an answer before the whole body (401 in onRequest, 413): the client reads it before the connection closes
    lingerOnUnreadBody(request.raw, reply.raw);
  });
  app.addHook('onRequest', async (request, reply) => {
    request.netgraph = { operationName: null, statements: 0, clientAddress: request.ip };
    reply.header('x-request-id', request.id);
  });
  const requestLog = services.requestLog.writer;
  app.addHook('onResponse', async (request, reply) => {
    const context = request.netgraph;
    metrics.observeRequest(
      request.routeOptions.url ?? 'unmatched',
      context?.operationName ?? '-',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    const path = request.url.split('?')[0] ?? request.url;
    const facts = { method: request.method, path, clientAddress: request.ip, status: reply.statusCode, elapsedMs: reply.elapsedTime };
    if (requestLog !== undefined) {
      const entry = keyRequest(facts, request.id, request.headers['user-agent'], context);
      if (entry !== undefined) requestLog.record(entry);
    }
    // the request id is in request.log's bindings
    logRequest(request.log, requestLine(facts, context));
  });

  app.setErrorHandler((rawError: FastifyError, request, reply) => {
    return sendAnswer(reply, answerForError(rawError, { requestId: request.id, log: request.log, classify: classifyError }));
  });

  const limits = createLimitsService(config.limits, { log: app.log, ...(deps.clock ? { now: deps.clock } : {}) });
  app.addHook('onClose', async () => limits.close());
  await limits.ready();

  const schema = createSchema();
  const documents = new DocumentCache(schema, config.documentLimits, config.limits.maxComplexity);
  const mutations = createMutationExecutor({ schema, reads: services.reads, services });
  // the API's queries may read the replica; mutations read their writes back from the primary
  const executor = createExecutor({ schema, documents, reads: services.replicaReads, mutations });
  const graphqlDeps = {
    executor,
    admission: createGraphQLAdmission(services.apiKeys, limits, (limit) => metrics.countRateLimited(limit)),
    limits,
    schemaText: printSchemaReference(schema),
    requestTimeoutMs: config.requestTimeoutMs,
    onLimited: (limit: 'requests' | 'complexity') => metrics.countRateLimited(limit),
  };
  registerGraphQLRoutes(app, graphqlDeps);
  bare.graphql = createGraphQLEndpoint({
    ...graphqlDeps,
    log: app.log,
    requestId: requestIdFrom,
    observe: (operationName, status, seconds) => metrics.observeRequest(GRAPHQL_PATH, operationName ?? '-', status, seconds),
    classifyError,
    draining: () => draining,
    clientAddress: (request) => clientAddress(request, config.trustProxy),
    requestLog,
  });
  const reportLimits = createLimitsService(
    { ...config.limits, requestsPerWindow: config.ingest.rateLimitReports, windowSeconds: 60, redisKeyPrefix: `${config.limits.redisKeyPrefix}reports:` },
    { log: app.log, ...(deps.clock ? { now: deps.clock } : {}) },
  );
  app.addHook('onClose', async () => reportLimits.close());
  await reportLimits.ready();
  registerReportRoutes(app, {
    apiKeys: services.apiKeys,
    reports: services.reports,
    collectorTargets: services.collectorTargets,
    collectorRanges: services.collectorRanges,
    discoveredDevices: services.discoveredDevices,
    limits: reportLimits,
    classifyError,
    onLimited: () => metrics.countRateLimited('reports'),
    onIngested: (figures) => metrics.observeIngest(figures),
  });
  const dashboard = await registerDashboard(app, { config, services, schema, classifyError });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // a browser gets the dashboard's page; the API and scripts keep the JSON problem body
    if (!path.startsWith('/api/') && request.method === 'GET' && request.headers.accept?.includes('text/html')) {
      return dashboard.notFound(request, reply);
    }
    return sendAnswer(reply, notFound(`There is nothing at ${request.method} ${path}; the API is POST ${GRAPHQL_PATH}.`));
  });

  app.get('/healthz', async (_request, reply) => reply.type(JSON_TYPE).send('{"status":"ok"}'));
  // a draining process says so, so a load balancer stops sending it new requests before it exits
  app.get('/readyz', async (_request, reply) => {
    try {
      if (draining) throw new AppError('SERVICE_UNAVAILABLE', 'draining');
      await store.ping();
      if (!(await isMigrated(store))) throw new AppError('SERVICE_UNAVAILABLE', 'migrations pending');
      return reply.type(JSON_TYPE).send('{"status":"ready"}');
    } catch {
      return reply.code(ERROR_CODES.SERVICE_UNAVAILABLE).type(JSON_TYPE).send('{"status":"unavailable"}');
    }
  });

  if (config.metricsPort === null) {
    // on the API port, metrics answer only to this machine; METRICS_PORT moves them to a port of their own
    app.get('/metrics', async (request, reply) => {
      // behind a proxy on this machine every peer is loopback: the forwarded client must be too
      if (!isLoopback(request.socket.remoteAddress) || !isLoopback(request.ip)) return reply.callNotFound();
      return reply.type(metrics.contentType).send(await metrics.render());
    });
  }

  return app;
}

/** The request id: the client's X-Request-Id when it is a sane token, a new UUID otherwise. */
function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : randomUUID();
}

/** True for 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
