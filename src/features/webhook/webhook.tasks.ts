import { createPeriodicTasks } from '../../platform/tasks/periodic.js';
import type { TaskLog } from '../../platform/tasks/periodic.js';
import type { Deliverer } from './webhook-delivery.service.js';
import { DISPATCH_BATCH } from './webhook-dispatch.service.js';
import type { Dispatcher } from './webhook-dispatch.service.js';

/** How often undispatched events and audit entries are looked for. */
const DISPATCH_INTERVAL_MS = 500;
/** How often connected-client counts are compared with CLIENT_COUNT_ABOVE thresholds. */
const CLIENT_COUNT_INTERVAL_MS = 5_000;
/** How often API keys are looked at for API_KEY_EXPIRING. */
const KEY_EXPIRY_INTERVAL_MS = 60_000;
/** How often due messages are looked for. */
const DELIVERY_INTERVAL_MS = 250;
/** How often delivered and failed messages past their retention are deleted. */
const EXPIRY_INTERVAL_MS = 60_000;
/** Messages one process attempts at once. */
export const DELIVERY_CONCURRENCY = 32;

/**
 * Runs the dispatcher and the deliverer in the background of a server
 * process; every process may run them (row claims keep them apart). A batch
 * that comes back full is followed at once by the next, so a burst drains
 * without waiting for the timer. Returns the function that stops them and
 * waits for the work in progress.
 */
export function startWebhookTasks(work: { dispatcher: Dispatcher; deliverer: Deliverer }, retentionDays: number, log: TaskLog): () => Promise<void> {
  const { dispatcher, deliverer } = work;
  const tasks = createPeriodicTasks(log);
  const full = (taken: number) => taken === DISPATCH_BATCH;
  tasks.every(DISPATCH_INTERVAL_MS, 'webhook event dispatch', () => dispatcher.dispatchEvents(), full);
  tasks.every(DISPATCH_INTERVAL_MS, 'webhook audit dispatch', () => dispatcher.dispatchAudit(), full);
  tasks.every(CLIENT_COUNT_INTERVAL_MS, 'webhook client count check', () => dispatcher.checkClientCounts());
  tasks.every(KEY_EXPIRY_INTERVAL_MS, 'webhook API key expiry check', () => dispatcher.checkExpiringKeys());
  tasks.every(EXPIRY_INTERVAL_MS, 'webhook log retention', () => deliverer.expire(retentionDays));
  tasks.every(DELIVERY_INTERVAL_MS, 'webhook delivery', () => deliverer.deliverDue(DELIVERY_CONCURRENCY), (attempted) => attempted === DELIVERY_CONCURRENCY);
  return () => tasks.stop();
}
