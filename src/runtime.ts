import type { Config } from './config.js';
import { openStore } from './db/open-store.js';
import type { StoreOptions } from './db/store-options.js';
import type { Store } from './db/store.js';
import { createServices } from './services.js';
import type { Services } from './services.js';

/** What one process runs on: the open store and the services over it. */
export interface Runtime {
  readonly store: Store;
  readonly services: Services;
  /** Writes pending API key last-used times and request log rows (their failure is not the caller's), then closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the configured store and builds the process's services over it, with
 * the configured session lifetime and device-report settings. The server and
 * every CLI command start here; only the store options differ (the server
 * sizes its pool and sets timeouts, a command takes one or two connections
 * and no timeout). `clock` (ms since the epoch; tests pass their own) drives
 * device reports' online window and retention, and webhooks' delivery schedule.
 */
export async function openRuntime(config: Config, storeOptions: StoreOptions, clock?: () => number): Promise<Runtime> {
  const store = await openStore(config.database, storeOptions);
  const services = createServices(store, {
    users: { sessionTtlMs: config.sessionTtlMinutes * 60_000 },
    reports: { settings: config.ingest, ...(clock ? { now: () => new Date(clock()) } : {}) },
    webhooks: { settings: config.webhooks, ...(clock ? { now: () => new Date(clock()) } : {}) },
    requestLog: config.apiRequestLog,
  });
  return {
    store,
    services,
    async close() {
      await services.apiKeys.stop().catch(() => undefined);
      await services.requestLog.stop().catch(() => undefined);
      await store.close();
    },
  };
}
