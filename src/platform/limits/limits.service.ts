import type { LimitsConfig } from '../../config.js';
import type { Caller } from '../../kernel/caller.js';
import { BUDGET_ADMITS_AT, budgetHoldsAt } from './limits.arithmetic.js';
import type { LimitPolicies } from './limits.arithmetic.js';
import { createFailoverLimitStore } from './limits.failover.js';
import type { FailoverLog, LimitMode } from './limits.failover.js';
import type { LimitState } from './limits.headers.js';
import { createRedisLimitStore } from './limits.redis.js';
import { createMemoryLimitStore } from './limits.store.js';
import type { LimitStore } from './limits.store.js';

/** The outcome of a limit check: go ahead, or wait until `retryAt`. Either way, the state to report. */
export type LimitDecision =
  | { readonly allowed: true; readonly state: LimitState }
  | { readonly allowed: false; readonly state: LimitState; readonly retryAt: number };

/** What the limits service is built from; `now` is injectable so tests control time. */
export interface LimitsDeps {
  readonly now?: () => number;
  readonly log: FailoverLog;
}

/** How long a starting server waits for Redis before it serves with per-process limits. */
const REDIS_STARTUP_WAIT_MS = 2_000;

/** The policies the config describes. */
export function limitPolicies(config: LimitsConfig): LimitPolicies {
  return {
    requests: { limit: config.requestsPerWindow, windowMs: config.windowSeconds * 1000 },
    budget: { capacity: config.complexityBudget, refillMs: config.budgetRefillSeconds * 1000 },
  };
}

/**
 * Per-key limits: a fixed window of requests, checked before a request is
 * parsed, and a complexity budget that refills continuously, charged with an
 * operation's requested cost before it runs (admitted while it holds a point) and refunded down to its actual
 * cost after (docs/limits.md). The state lives in memory, or in Redis
 * when REDIS_URL is set (falling back to memory while Redis is away).
 */
export function createLimitsService(config: LimitsConfig, deps: LimitsDeps) {
  const now = deps.now ?? Date.now;
  const policies = limitPolicies(config);
  const local = createMemoryLimitStore(policies);
  const redis = config.redisUrl === null ? undefined : createRedisLimitStore(config.redisUrl, config.redisKeyPrefix, policies);
  const failover = redis ? createFailoverLimitStore(redis, local, deps.log) : undefined;
  const store: LimitStore = failover ?? local;

  return {
    policies,

    /** The most points one operation may cost. */
    maxComplexity: config.maxComplexity,

    /** Waits (briefly) for Redis, so the first requests already share limits; a no-op without Redis. */
    async ready(): Promise<void> {
      if (redis) await redis.connected(REDIS_STARTUP_WAIT_MS);
    },

    /**
     * Counts a request of the caller's key (as `weight` requests: a batch of
     * device reports counts each report); refused once the window is used up.
     */
    async admitRequest(caller: Caller, weight = 1): Promise<LimitDecision> {
      const at = now();
      const admission = await store.admit(limitKey(caller), at, weight);
      const state: LimitState = {
        now: at,
        requests: {
          remaining: Math.max(0, policies.requests.limit - admission.requests.count),
          resetAt: admission.requests.resetAt,
        },
        budget: { cost: 0, level: admission.budget.level },
      };
      if (admission.requests.count <= policies.requests.limit) return { allowed: true, state };
      return { allowed: false, state, retryAt: admission.requests.resetAt };
    },

    /**
     * Charges an operation's cost to the caller's budget, which may go below
     * zero; refused (and not charged) when the budget is below one point
     * (BUDGET_ADMITS_AT), with the time it will be back at it.
     */
    async chargeOperation(caller: Caller, admitted: LimitState, cost: number): Promise<LimitDecision> {
      const at = now();
      const charge = await store.charge(limitKey(caller), cost, at);
      const state: LimitState = {
        now: at,
        requests: admitted.requests,
        budget: { cost: charge.allowed ? cost : 0, level: charge.budget.level },
      };
      if (charge.allowed) return { allowed: true, state };
      return { allowed: false, state, retryAt: budgetHoldsAt(charge.budget, Math.min(cost, BUDGET_ADMITS_AT), policies.budget) };
    },

    /**
     * Settles an operation that ran: it was charged `charged.budget.cost`
     * (its requested cost) before it ran, and gives back what its answer did
     * not use. The state to report: this request cost `actual`, and the
     * budget's level after the refund. No store round trip when nothing is
     * given back.
     */
    async settleOperation(caller: Caller, charged: LimitState, actual: number): Promise<LimitState> {
      const refund = charged.budget.cost - actual;
      if (refund <= 0) return charged;
      const at = now();
      const level = await store.refund(limitKey(caller), refund, at);
      return { now: at, requests: charged.requests, budget: { cost: actual, level: level.level } };
    },

    /** Which store answered last: shared (Redis) or local (this process). */
    mode(): LimitMode {
      return failover?.mode() ?? 'local';
    },

    async close(): Promise<void> {
      await store.close();
    },
  };
}

export type LimitsService = ReturnType<typeof createLimitsService>;

/** Limits are per API key; a caller without one (a dashboard user) is limited per company. */
function limitKey(caller: Caller): string {
  return caller.keyUuid ?? `company-${caller.companyId}`;
}
