import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { AppError } from '../kernel/errors.js';

/**
 * The metrics of a `netgraph serve --workers N` server. A scrape lands on
 * any worker (they share the port), and every worker answers for the whole
 * server: it asks the primary, which gathers all workers' registries with
 * prom-client's AggregatorRegistry.clusterMetrics() (sums by label set, the
 * process defaults by their own rule) and sends the text back. Per-worker
 * figures survive as the `netgraph_worker_*` families, labelled `worker`,
 * which prom-client's aggregation leaves apart (docs/operations.md).
 */

const ASK = 'netgraph:cluster-metrics-ask';
const ANSWER = 'netgraph:cluster-metrics-answer';
/** Longer than clusterMetrics()'s own 5 s, so its error (a worker that does not answer) comes back first. */
const ANSWER_TIMEOUT_MS = 6_000;

/** The families also kept per worker, as `netgraph_worker_<name without netgraph_>{worker="<id>"}`: the sum of their series. */
const PER_WORKER_FAMILIES = [
  'netgraph_http_requests_total',
  'netgraph_reports_accepted_total',
  'netgraph_db_pool_connections_in_use',
  'netgraph_db_pool_waiting_requests',
  'netgraph_process_cpu_seconds_total',
  'netgraph_process_resident_memory_bytes',
  'netgraph_nodejs_eventloop_lag_p99_seconds',
] as const;

interface Ask {
  readonly type: typeof ASK;
  readonly id: number;
}
interface Answer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

/**
 * In the primary of a `--workers` server: answers every worker's ask for the
 * whole server's metrics. Call before the workers start.
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isMessage<Ask>(message, ASK)) return;
    aggregator.clusterMetrics().then(
      (text) => answer(worker, { type: ANSWER, id: message.id, text }),
      (error: unknown) => answer(worker, { type: ANSWER, id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

function answer(worker: Worker, message: Answer): void {
  // a worker that exited since it asked has nobody left to answer
  if (worker.isConnected()) worker.send(message);
}

/**
 * In a worker: offers `registry`, and this worker's per-worker figures, to
 * the primary's aggregation, and returns the render function of /metrics,
 * which asks the primary for the whole server's text.
 */
export function joinClusterMetrics(registry: Registry, workerId: number): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry, perWorkerRegistry(registry, String(workerId))]);
  // its constructor sets up prom-client's answer to the primary's requests
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage<Answer>(message, ANSWER)) return;
    const entry = waiting.get(message.id);
    if (entry === undefined) return;
    waiting.delete(message.id);
    clearTimeout(entry.timer);
    if (message.text !== undefined) entry.resolve(message.text);
    else entry.reject(unavailable(message.error ?? 'no answer'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(unavailable(`none within ${ANSWER_TIMEOUT_MS} ms`));
      }, ANSWER_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      const ask: Ask = { type: ASK, id };
      process.send?.(ask);
    });
}

function unavailable(reason: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `The server's workers could not be gathered for metrics (${reason}); scrape again.`);
}

/**
 * A registry of this worker's own figures of PER_WORKER_FAMILIES, read from
 * `registry` at each collection, with the label `worker`: its series differ
 * from every other worker's, so the aggregation keeps each one.
 */
function perWorkerRegistry(registry: Registry, worker: string): Registry {
  const own = new Registry();
  for (const name of PER_WORKER_FAMILIES) {
    const source = registry.getSingleMetric(name);
    if (source === undefined) throw new Error(`cluster-metrics: no family ${name} in the registry`);
    const sum = async (): Promise<number> => {
      const values: MetricValue<string>[] = ((await source.get()) as MetricObjectWithValues<MetricValue<string>>).values;
      return values.reduce((total, value) => total + value.value, 0);
    };
    const config = { name: name.replace(/^netgraph_/, 'netgraph_worker_'), help: `${name}, of each worker.`, labelNames: ['worker'], registers: [own] };
    if (name.endsWith('_total')) {
      new Counter({
        ...config,
        async collect() {
          this.reset();
          this.inc({ worker }, await sum());
        },
      });
    } else {
      new Gauge({
        ...config,
        async collect() {
          this.set({ worker }, await sum());
        },
      });
    }
  }
  return own;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}
