/** How the client retries a query that got no answer, or a 502, 503 or 504. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4); 0 turns retrying off. */
  readonly retries?: number;
  /** The backoff of the first retry, doubled for each next one (default 250 ms). */
  readonly baseDelayMs?: number;
  /** The longest backoff (default 10 s). */
  readonly maxDelayMs?: number;
}

/** The statuses a query is retried on: a proxy's or the server's "try again". */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * The wait before retry `attempt` (1 for the first): "full jitter" over an
 * exponential ceiling, so that many clients failing at once do not come
 * back at once (AWS Architecture Blog, "Exponential Backoff And Jitter").
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = policy.baseDelayMs ?? 250;
  const ceiling = Math.min(policy.maxDelayMs ?? 10_000, base * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
