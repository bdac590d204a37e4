import type { DatabaseTarget } from '../config.js';
import type { Store } from './store.js';
import type { StoreOptions } from './store-options.js';

/** Opens the store the target names. The only place that branches on the dialect. */
export async function openStore(target: DatabaseTarget, options: StoreOptions = {}): Promise<Store> {
  if (target.dialect === 'sqlite') {
    const { openSqliteStore } = await import('./sqlite.js');
    return openSqliteStore(target.file);
  }
  const { openPostgresStore } = await import('./postgres.js');
  return openPostgresStore(target.url, options);
}
