import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReadReplicaStatus, Store } from '../db/store.js';
import type { IngestFigures } from '../ingest/report.service.js';
import { joinClusterMetrics } from './cluster-metrics.js';

/** The metrics of one server process, in their own registry (several apps can share a process in tests). */
export interface Metrics {
  readonly registry: Registry;
  /** Records one finished request. `operation` is the GraphQL operation name, or "-" for none / other routes. */
  observeRequest(route: string, operation: string, status: number, seconds: number): void;
  /** Counts a request refused by a rate or complexity limit. */
  countRateLimited(limit: 'requests' | 'complexity' | 'reports'): void;
  /** Records one committed batch of POST /api/v1/reports: reports accepted, duplicates, rejected by code, ingest lag. */
  observeIngest(figures: IngestFigures): void;
  // Webhook deliveries (by outcome, with their latency) get their observe method here, next to ingest's.
  /**
   * The Prometheus text exposition: this process's figures, or under
   * `netgraph serve --workers N` the whole server's (cluster-metrics.ts).
   */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Longest operation names kept as a label value; longer ones are cut so labels stay bounded. */
const MAX_OPERATION_LABEL = 64;
/** Distinct operation names tracked; past this, new names count as "other" (clients choose names). */
const MAX_OPERATIONS = 200;

/** Ingest lag buckets, in seconds: from a live device's second to a buffered day sent late (raw retention is 48 h). */
const LAG_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600, 48 * 3600];

/** How a process's metrics are served: alone, or as one worker of a `--workers` server (`id`: cluster.worker.id). */
export interface MetricsOptions {
  readonly clusterWorker?: { readonly id: number };
}

/**
 * Creates the process's metrics: requests by route, operation and status, a
 * latency histogram, rate-limit rejections, device reports and their lag,
 * the database pool, and Node's default process metrics. A cluster worker
 * renders the whole server's figures, asked of the primary.
 */
export function createMetrics(store: Store, options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'netgraph_' });
  const requests = new Counter({
    name: 'netgraph_http_requests_total',
    help: 'HTTP requests by route, GraphQL operation name and status code.',
    labelNames: ['route', 'operation', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'netgraph_http_request_duration_seconds',
    help: 'HTTP request latency by route.',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const limited = new Counter({
    name: 'netgraph_rate_limited_total',
    help: 'Requests refused by a per-key limit.',
    labelNames: ['limit'],
    registers: [registry],
  });
  new Gauge({
    name: 'netgraph_db_pool_connections_in_use',
    help: 'Database connections running a query.',
    registers: [registry],
    collect() {
      this.set(store.poolState().inUse);
    },
  });
  new Gauge({
    name: 'netgraph_db_pool_waiting_requests',
    help: 'Queries waiting for a database connection.',
    registers: [registry],
    collect() {
      this.set(store.poolState().waiting);
    },
  });
  new Gauge({
    name: 'netgraph_db_pool_size',
    help: 'Largest number of database connections of this process.',
    registers: [registry],
    collect() {
      this.set(store.poolState().size);
    },
  });
  new Counter({
    name: 'netgraph_db_statements_total',
    help: 'SQL statements run by this process.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(store.stats.statements);
    },
  });
  if (store.replica !== undefined) registerReplicaMetrics(registry, store.replica);

  const reports = createReportMetrics(registry);

  const operations = new Set<string>();
  const operationLabel = (name: string): string => {
    const label = name.slice(0, MAX_OPERATION_LABEL);
    if (operations.has(label)) return label;
    if (operations.size >= MAX_OPERATIONS) return 'other';
    operations.add(label);
    return label;
  };

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(route, operation, status, seconds) {
      requests.inc({ route, operation: operationLabel(operation), status: String(status) });
      duration.observe({ route }, seconds);
    },
    countRateLimited(limit) {
      limited.inc({ limit });
    },
    observeIngest: reports,
    render: options.clusterWorker === undefined ? () => registry.metrics() : joinClusterMetrics(registry, options.clusterWorker.id),
  };
}

/** The reports' counters and lag histogram; returns the function that records one batch. */
function createReportMetrics(registry: Registry): (figures: IngestFigures) => void {
  const accepted = new Counter({ name: 'netgraph_reports_accepted_total', help: 'Device reports stored.', registers: [registry] });
  const duplicates = new Counter({
    name: 'netgraph_reports_duplicates_total',
    help: 'Device reports whose reportId was stored before (retries): answered, not stored again.',
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'netgraph_reports_rejected_total',
    help: 'Device reports refused in an accepted batch, by code (BAD_USER_INPUT: invalid; UNAUTHORIZED: serial number not of the key\'s company).',
    labelNames: ['code'],
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'netgraph_report_ingest_lag_seconds',
    help: 'Time from a stored report\'s observedAt to its commit.',
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  // both codes show from the start, at 0, so a rate over them needs no absent() guard
  for (const code of ['BAD_USER_INPUT', 'UNAUTHORIZED']) rejected.inc({ code }, 0);
  return (figures) => {
    accepted.inc(figures.accepted);
    duplicates.inc(figures.duplicates);
    for (const rejection of figures.rejected) rejected.inc({ code: rejection.code });
    for (const seconds of figures.lagSeconds) lag.observe(seconds);
  };
}

/** Where the API's queries read (READ_DATABASE_URL) and how far behind the replica was at its last check. */
function registerReplicaMetrics(registry: Registry, replica: ReadReplicaStatus): void {
  new Gauge({
    name: 'netgraph_read_replica_in_use',
    help: 'Whether the API queries read from the read replica (1) or, with it down or too far behind, the primary (0).',
    registers: [registry],
    // under --workers: 1 only while every worker reads the replica
    aggregator: 'min',
    collect() {
      this.set(replica.state().target === 'replica' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'netgraph_read_replica_lag_seconds',
    help: 'How far the read replica was behind the primary at its last check.',
    registers: [registry],
    // under --workers: the largest lag any worker saw
    aggregator: 'max',
    collect() {
      const { lagMs } = replica.state();
      if (lagMs !== null) this.set(lagMs / 1000);
    },
  });
}
