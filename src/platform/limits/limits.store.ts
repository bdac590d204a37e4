import { bucketLevel, countRequest, refundToBucket, takeFromBucket } from './limits.arithmetic.js';
import type { Admission, BucketState, BudgetLevel, Charge, LimitPolicies, WindowState } from './limits.arithmetic.js';

/**
 * Where the limit state of keys lives: this process's memory, or Redis so
 * that several processes share one budget per key. Both apply the same
 * arithmetic (limits.arithmetic.ts) at the time the caller passes in.
 */
export interface LimitStore {
  /** Counts one request of `key` (or `weight` units) and reads its budget's level, in one step. */
  admit(key: string, now: number, weight?: number): Promise<Admission>;
  /** Takes `cost` points from `key`'s budget when it holds them. */
  charge(key: string, cost: number, now: number): Promise<Charge>;
  /** Gives `points` back to `key`'s budget (never above capacity) and reads its level after. */
  refund(key: string, points: number, now: number): Promise<BudgetLevel>;
  close(): Promise<void>;
}

interface KeyState {
  window?: WindowState;
  bucket?: BucketState;
}

/** How many keys a memory store tracks before it drops the ones whose limits have fully recovered. */
const MEMORY_STORE_SWEEP_AT = 50_000;

/**
 * Limit state in this process's memory. Several processes each keep their
 * own, so a key gets the limits once per process: the default, and what the
 * server falls back to while Redis is unreachable.
 */
export function createMemoryLimitStore(policies: LimitPolicies): LimitStore {
  const keys = new Map<string, KeyState>();

  const stateOf = (key: string, now: number): KeyState => {
    let state = keys.get(key);
    if (state === undefined) {
      if (keys.size >= MEMORY_STORE_SWEEP_AT) sweep(keys, now, policies);
      state = {};
      keys.set(key, state);
    }
    return state;
  };

  return {
    async admit(key, now, weight = 1) {
      const state = stateOf(key, now);
      state.window = countRequest(state.window, now, policies.requests, weight);
      return {
        requests: { count: state.window.count, resetAt: state.window.start + policies.requests.windowMs },
        budget: { level: bucketLevel(state.bucket, now, policies.budget), at: now },
      };
    },
    async charge(key, cost, now) {
      const state = stateOf(key, now);
      const taken = takeFromBucket(state.bucket, now, policies.budget, cost);
      if (taken.state !== undefined) state.bucket = taken.state;
      return { allowed: taken.allowed, budget: { level: taken.level, at: now } };
    },
    async refund(key, points, now) {
      const state = stateOf(key, now);
      state.bucket = refundToBucket(state.bucket, now, policies.budget, points);
      return { level: state.bucket.level, at: now };
    },
    async close() {
      keys.clear();
    },
  };
}

/**
 * Forgets keys whose window is over and whose budget is full again: they are
 * indistinguishable from keys never seen. If that frees too little (a flood
 * of keys all in use), the oldest entries go, which only ever errs in the
 * caller's favour.
 */
function sweep(keys: Map<string, KeyState>, now: number, policies: LimitPolicies): void {
  for (const [key, state] of keys) {
    const windowOver = state.window === undefined || now >= state.window.start + policies.requests.windowMs;
    const budgetFull = bucketLevel(state.bucket, now, policies.budget) >= policies.budget.capacity;
    if (windowOver && budgetFull) keys.delete(key);
  }
  for (const key of keys.keys()) {
    if (keys.size < MEMORY_STORE_SWEEP_AT * 0.9) break;
    keys.delete(key);
  }
}
