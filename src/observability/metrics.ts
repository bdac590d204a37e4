import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReadReplicaStatus, Store } from '../db/store.js';

/** The metrics of one server process, in their own registry (several apps can share a process in tests). */
export interface Metrics {
  readonly registry: Registry;
  /** Records one finished request. `operation` is the GraphQL operation name, or "-" for none / other routes. */
  observeRequest(route: string, operation: string, status: number, seconds: number): void;
  /** Counts a request refused by a rate or complexity limit. */
  countRateLimited(limit: 'requests' | 'complexity' | 'reports'): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Longest operation names kept as a label value; longer ones are cut so labels stay bounded. */
const MAX_OPERATION_LABEL = 64;
/** Distinct operation names tracked; past this, new names count as "other" (clients choose names). */
const MAX_OPERATIONS = 200;

/**
 * Creates the process's metrics: requests by route, operation and status, a
 * latency histogram, rate-limit rejections, the database pool, and Node's
 * default process metrics.
 */
export function createMetrics(store: Store): Metrics {
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
    render: () => registry.metrics(),
  };
}

/** Where the API's queries read (READ_DATABASE_URL) and how far behind the replica was at its last check. */
function registerReplicaMetrics(registry: Registry, replica: ReadReplicaStatus): void {
  new Gauge({
    name: 'netgraph_read_replica_in_use',
    help: 'Whether the API queries read from the read replica (1) or, with it down or too far behind, the primary (0).',
    registers: [registry],
    collect() {
      this.set(replica.state().target === 'replica' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'netgraph_read_replica_lag_seconds',
    help: 'How far the read replica was behind the primary at its last check.',
    registers: [registry],
    collect() {
      const { lagMs } = replica.state();
      if (lagMs !== null) this.set(lagMs / 1000);
    },
  });
}
