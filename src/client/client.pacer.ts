/**
 * The client's picture of its key's two limits (docs/limits.md), kept from
 * the headers of every answer, so that it waits before a request the server
 * would refuse instead of after the 429:
 * - the request window: `X-RateLimit-Remaining` requests until `X-RateLimit-Reset`;
 * - the complexity budget: `X-Complexity-Remaining` points of `X-Complexity-Limit`,
 *   refilled continuously at the rate `RateLimit-Policy` gives (q points per w seconds).
 *   The server admits an operation while the budget holds BUDGET_ADMITS_AT (one)
 *   point, whatever its cost, and may take it below zero, which it reports as
 *   0 points with `X-Complexity-Reset` the time it is back at one point; so the
 *   pacer waits until one point, counting the requested cost of the requests
 *   in flight (each answer reports a document's, `extensions.cost`).
 * Times are on this machine's clock: a server time is moved by the answer's
 * `Date` header, which is truncated to the second, so a wait is never early.
 */
export interface Pacer {
  /**
   * Either reserves a request of the document `key` (a request and its
   * known cost) and returns 0, or returns how long to wait before asking
   * again; with `force` it reserves at once (a client that does not pace).
   */
  admit(key: string, force?: boolean): number;
  /** Gives back what admit() reserved, and learns from the answer's headers and reported cost. */
  settle(key: string, answer: AnswerFacts | undefined): void;
  /** After a 429 of the request limit: no request before `retryAt` (local ms). */
  blockRequestsUntil(retryAt: number): void;
  /** After THROTTLED: the document's cost, and the budget's level the answer reported. */
  learnThrottled(key: string, cost: number | undefined, remaining: number | undefined): void;
}

/** What one answer says about the limits. */
export interface AnswerFacts {
  readonly headers: Headers;
  /** `extensions.cost.requested` of the answer, when it ran. */
  readonly requestedCost: number | undefined;
  /** The local time the answer arrived. */
  readonly receivedAt: number;
}

/** The document costs the pacer remembers at most (the largest seen per document text). */
const MAX_KNOWN_COSTS = 1000;

/**
 * The points at which the server admits an operation, whatever its cost:
 * the server's BUDGET_ADMITS_AT (src/platform/limits/limits.arithmetic.ts),
 * repeated because the client imports nothing of the server's.
 */
export const BUDGET_ADMITS_AT = 1;

/**
 * How much earlier than `X-Complexity-Reset` (local) the budget may truly be
 * back at one point: the reset is rounded up to the second, and the `Date`
 * header that moves it to this clock is truncated to the second.
 */
const RESET_ROUNDING_MS = 2000;

/** A budget as the pacer models it: `level` points at `at` (local ms), possibly below zero. */
interface BudgetModel {
  readonly level: number;
  readonly at: number;
  readonly capacity: number;
  readonly perMs: number;
}

/** Creates the pacer of one client; `now` is the local clock. */
export function createPacer(now: () => number): Pacer {
  // the request window: requests left at the last answer, and its end (local ms)
  let requests: { remaining: number; resetAt: number } | undefined;
  // the budget: points at `at` (local ms), possibly below zero, its capacity and refill per ms
  let budget: BudgetModel | undefined;
  const costs = new Map<string, number>();
  const inFlight = { requests: 0, points: 0 };
  const reserved = new Map<string, number[]>();

  const budgetNow = (t: number) => (budget ? Math.min(budget.capacity, budget.level + (t - budget.at) * budget.perMs) : Infinity);

  return {
    admit(key, force = false) {
      const cost = costs.get(key) ?? 0;
      const wait = force ? 0 : waitFor(now());
      if (wait > 0) return wait;
      inFlight.requests += 1;
      inFlight.points += cost;
      reserved.set(key, [...(reserved.get(key) ?? []), cost]);
      return 0;
    },
    settle(key, answer) {
      const pending = reserved.get(key) ?? [];
      const cost = pending.shift() ?? 0;
      if (pending.length === 0) reserved.delete(key);
      inFlight.requests -= 1;
      inFlight.points -= cost;
      if (!answer) return;
      if (answer.requestedCost !== undefined) rememberCost(key, answer.requestedCost);
      const facts = readLimitHeaders(answer.headers, answer.receivedAt);
      if (facts.requests) requests = facts.requests;
      if (facts.budget) budget = belowZero(facts.budget, answer, cost);
    },
    blockRequestsUntil(retryAt) {
      requests = { remaining: 0, resetAt: Math.max(retryAt, requests?.resetAt ?? 0) };
    },
    learnThrottled(key, cost, remaining) {
      if (cost !== undefined) rememberCost(key, cost);
      // the refusal's headers (settle) already said when the budget is back at one point; only a level above that is news
      if (budget && remaining !== undefined && remaining >= BUDGET_ADMITS_AT) budget = { ...budget, level: remaining, at: now() };
    },
  };

  /**
   * The budget after an answer. At 0 points the headers say only that it is
   * below one point until `X-Complexity-Reset` (`facts.level` is already
   * derived from it, rounded late): the pacer's own account, the level before
   * plus refill minus what the request cost (`X-Complexity-Cost`, else the
   * reserved cost), is used instead when it lies within the reset's rounding,
   * so a loop of expensive operations waits until one point and no longer.
   */
  function belowZero(facts: BudgetModel, answer: AnswerFacts, reservedCost: number): BudgetModel {
    if (facts.level >= BUDGET_ADMITS_AT || !budget || facts.perMs <= 0) return facts;
    const charged = integer(answer.headers.get('x-complexity-cost')) ?? reservedCost;
    const account = budgetNow(answer.receivedAt) - charged;
    const latest = facts.level + RESET_ROUNDING_MS * facts.perMs;
    return { ...facts, level: Math.max(facts.level, Math.min(account, latest)) };
  }

  /**
   * How long until the window allows a request and the budget holds one
   * point beyond the costs of the requests in flight (whatever this one's
   * cost: the server admits it at one point and takes the budget below zero).
   */
  function waitFor(t: number): number {
    if (requests && t < requests.resetAt && requests.remaining - inFlight.requests <= 0) return requests.resetAt - t;
    if (!budget || budget.perMs <= 0) return 0;
    const available = budgetNow(t) - inFlight.points;
    return available < BUDGET_ADMITS_AT ? Math.ceil((BUDGET_ADMITS_AT - available) / budget.perMs) : 0;
  }

  function rememberCost(key: string, cost: number): void {
    if (!costs.has(key) && costs.size >= MAX_KNOWN_COSTS) costs.delete(costs.keys().next().value as string);
    costs.set(key, Math.max(cost, costs.get(key) ?? 0));
  }
}

/**
 * The limits an answer's headers report, on the local clock; a part is
 * absent when its headers are. At 0 points the budget may be below zero: its
 * level is then the one from which it refills to one point by
 * `X-Complexity-Reset` (rounded up, so never early).
 */
export function readLimitHeaders(headers: Headers, receivedAt: number): { requests?: { remaining: number; resetAt: number }; budget?: BudgetModel } {
  const skew = clockSkew(headers, receivedAt);
  const remaining = integer(headers.get('x-ratelimit-remaining'));
  const reset = Date.parse(headers.get('x-ratelimit-reset') ?? '');
  const level = integer(headers.get('x-complexity-remaining'));
  const capacity = integer(headers.get('x-complexity-limit'));
  const window = /"complexity";q=(\d+);w=(\d+(?:\.\d+)?)/.exec(headers.get('ratelimit-policy') ?? '');
  const perMs = window ? Number(window[1]) / (Number(window[2]) * 1000) : 0;
  const backAt = Date.parse(headers.get('x-complexity-reset') ?? '') - skew;
  // below one point until backAt: the level from which it refills to one point then
  const below = level === 0 && perMs > 0 && !Number.isNaN(backAt) ? BUDGET_ADMITS_AT - Math.max(0, backAt - receivedAt) * perMs : level;
  return {
    ...(remaining !== undefined && !Number.isNaN(reset) ? { requests: { remaining, resetAt: reset - skew } } : {}),
    ...(below !== undefined && capacity !== undefined ? { budget: { level: below, at: receivedAt, capacity, perMs } } : {}),
  };
}

/**
 * How far the server's clock is ahead of this one, from the answer's `Date`
 * (0 without one: a browser may not show it across origins). `Date` is
 * truncated to the second, so server times moved by it land at or after
 * their true local time.
 */
export function clockSkew(headers: Headers, receivedAt: number): number {
  const date = Date.parse(headers.get('date') ?? '');
  return Number.isNaN(date) ? 0 : date - receivedAt;
}

/**
 * When to retry after a 429 or 503, in local ms: `Retry-After` as an HTTP
 * date (what netgraph and Meter send) or as seconds; undefined without one.
 */
export function retryAt(headers: Headers, receivedAt: number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return receivedAt + Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date - clockSkew(headers, receivedAt);
}

function integer(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}
