import type { LimitStore } from './limits.store.js';

/** Where the failover store reports a change of mode: once when Redis goes away, once when it is back. */
export interface FailoverLog {
  warn(details: { err: unknown }, message: string): void;
  info(message: string): void;
}

/** Which store answered the last limit check. */
export type LimitMode = 'shared' | 'local';

/** A store that prefers the shared one and says which one it used last. */
export interface FailoverLimitStore extends LimitStore {
  mode(): LimitMode;
}

/**
 * Uses the shared (Redis) store while it answers and this process's memory
 * store while it does not, so the API keeps serving, with per-process limits,
 * through a Redis outage. Each check tries the shared store first (a down
 * connection fails at once), so shared limits return with the first check
 * after Redis is back. Logs once per change, never per request.
 */
export function createFailoverLimitStore(shared: LimitStore, local: LimitStore, log: FailoverLog): FailoverLimitStore {
  let mode: LimitMode = 'shared';

  async function use<T>(operation: (store: LimitStore) => Promise<T>): Promise<T> {
    try {
      const result = await operation(shared);
      if (mode === 'local') {
        mode = 'shared';
        log.info('rate limits: Redis answers again; limits are shared across processes again');
      }
      return result;
    } catch (error) {
      if (mode === 'shared') {
        mode = 'local';
        log.warn({ err: error }, 'rate limits: Redis is unavailable; serving with per-process limits until it is back');
      }
      return operation(local);
    }
  }

  return {
    admit: (key, now, weight) => use((store) => store.admit(key, now, weight)),
    charge: (key, cost, now) => use((store) => store.charge(key, cost, now)),
    refund: (key, points, now) => use((store) => store.refund(key, points, now)),
    mode: () => mode,
    async close() {
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
