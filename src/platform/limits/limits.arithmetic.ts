/**
 * The arithmetic of both limits, as pure functions of a state and a time in
 * milliseconds, so that tests drive them with a clock of their own. The Redis
 * store runs the same arithmetic in Lua (limits.redis.ts); a test checks that
 * the two agree.
 */

/** A fixed window: at most `limit` requests in `windowMs` from a key's first request. */
export interface WindowPolicy {
  readonly limit: number;
  readonly windowMs: number;
}

/** A budget of `capacity` points that refills continuously, from empty to full in `refillMs`. */
export interface BucketPolicy {
  readonly capacity: number;
  readonly refillMs: number;
}

/** Both policies a store applies. */
export interface LimitPolicies {
  readonly requests: WindowPolicy;
  readonly budget: BucketPolicy;
}

/** A key's current request window: when it started and how many requests it has seen. */
export interface WindowState {
  readonly start: number;
  readonly count: number;
}

/** A key's budget as of `updatedAt`; it refills from there. */
export interface BucketState {
  readonly level: number;
  readonly updatedAt: number;
}

/** What counting one request found: the count in the window (this request included) and when the window ends. */
export interface RequestCount {
  readonly count: number;
  readonly resetAt: number;
}

/** A budget's level (fractional points) at one moment. */
export interface BudgetLevel {
  readonly level: number;
  readonly at: number;
}

/** What a store answers when a request arrives: the request counted, the budget looked at (not charged). */
export interface Admission {
  readonly requests: RequestCount;
  readonly budget: BudgetLevel;
}

/** What charging a budget found: whether the points were taken, and the level after. */
export interface Charge {
  readonly allowed: boolean;
  readonly budget: BudgetLevel;
}

/**
 * Counts one request, or `weight` units of one (device reports count one per
 * report). A new window starts with the first request after the
 * previous window ended; requests over the limit are counted too, but never
 * move the window, so retrying early does not push the reset back.
 */
export function countRequest(state: WindowState | undefined, now: number, policy: WindowPolicy, weight = 1): WindowState {
  if (state === undefined || now >= state.start + policy.windowMs) return { start: now, count: weight };
  return { start: state.start, count: state.count + weight };
}

/** The budget's level at `now`: the saved level plus what refilled since, never above capacity. */
export function bucketLevel(state: BucketState | undefined, now: number, policy: BucketPolicy): number {
  if (state === undefined) return policy.capacity;
  const elapsed = Math.max(0, now - state.updatedAt);
  return Math.min(policy.capacity, state.level + (elapsed * policy.capacity) / policy.refillMs);
}

/**
 * The level at which the budget admits an operation: one point, whatever the
 * operation's requested cost (at most the per-operation limit). An operation
 * admitted may take the budget below zero, down to one point less than the
 * per-operation limit; the key then waits until it is back at one point.
 * Requiring the whole requested cost instead throttled scripts that pace
 * themselves the way Meter documents (wait while `X-Complexity-Remaining` is
 * low, until `X-Complexity-Reset`): a request of 400 points after a wait to
 * 150 points was refused however long the script had waited.
 */
export const BUDGET_ADMITS_AT = 1;

/**
 * Takes `cost` points when the budget holds at least BUDGET_ADMITS_AT (or
 * `cost`, when less), possibly below zero. A refused charge changes nothing,
 * so a throttled client does not dig itself deeper.
 */
export function takeFromBucket(
  state: BucketState | undefined,
  now: number,
  policy: BucketPolicy,
  cost: number,
): { readonly allowed: boolean; readonly state: BucketState | undefined; readonly level: number } {
  const level = bucketLevel(state, now, policy);
  if (level < Math.min(cost, BUDGET_ADMITS_AT)) return { allowed: false, state, level };
  return { allowed: true, state: { level: level - cost, updatedAt: now }, level: level - cost };
}

/**
 * Gives `points` back to the budget (what an operation was charged beyond
 * its actual cost), never above capacity.
 */
export function refundToBucket(state: BucketState | undefined, now: number, policy: BucketPolicy, points: number): BucketState {
  return { level: Math.min(policy.capacity, bucketLevel(state, now, policy) + points), updatedAt: now };
}

/** When the budget will hold `points` (at most its capacity) again, given its level at `budget.at`. */
export function budgetHoldsAt(budget: BudgetLevel, points: number, policy: BucketPolicy): number {
  const wanted = Math.min(points, policy.capacity);
  if (budget.level >= wanted) return budget.at;
  return budget.at + ((wanted - budget.level) * policy.refillMs) / policy.capacity;
}
