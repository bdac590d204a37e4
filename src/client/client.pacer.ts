/**
 * The client's picture of its key's two limits (docs/limits.md), kept from
 * the headers of every answer, so that it waits before a request the server
 * would refuse instead of after the 429:
 * - the request window: `X-RateLimit-Remaining` requests until `X-RateLimit-Reset`;
 * - the complexity budget: `X-Complexity-Remaining` points of `X-Complexity-Limit`,
 *   refilled continuously at the rate `RateLimit-Policy` gives (q points per w seconds),
 *   and each document's requested cost, which every answer reports (`extensions.cost`).
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

/** Creates the pacer of one client; `now` is the local clock. */
export function createPacer(now: () => number): Pacer {
  // the request window: requests left at the last answer, and its end (local ms)
  let requests: { remaining: number; resetAt: number } | undefined;
  // the budget: whole points at `at` (local ms), its capacity and refill per ms
  let budget: { level: number; at: number; capacity: number; perMs: number } | undefined;
  const costs = new Map<string, number>();
  const inFlight = { requests: 0, points: 0 };
  const reserved = new Map<string, number[]>();

  const budgetNow = (t: number) => (budget ? Math.min(budget.capacity, budget.level + (t - budget.at) * budget.perMs) : Infinity);

  return {
    admit(key, force = false) {
      const cost = costs.get(key) ?? 0;
      const wait = force ? 0 : waitFor(cost, now());
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
      if (facts.budget) budget = facts.budget;
    },
    blockRequestsUntil(retryAt) {
      requests = { remaining: 0, resetAt: Math.max(retryAt, requests?.resetAt ?? 0) };
    },
    learnThrottled(key, cost, remaining) {
      if (cost !== undefined) rememberCost(key, cost);
      if (budget && remaining !== undefined) budget = { ...budget, level: remaining, at: now() };
    },
  };

  /** How long until the window and the budget both allow a request of `cost` points, counting those in flight. */
  function waitFor(cost: number, t: number): number {
    if (requests && t < requests.resetAt && requests.remaining - inFlight.requests <= 0) return requests.resetAt - t;
    if (!budget || budget.perMs <= 0 || cost <= 0 || cost > budget.capacity) return 0;
    const available = budgetNow(t) - inFlight.points;
    return available < cost ? Math.ceil((cost - available) / budget.perMs) : 0;
  }

  function rememberCost(key: string, cost: number): void {
    if (!costs.has(key) && costs.size >= MAX_KNOWN_COSTS) costs.delete(costs.keys().next().value as string);
    costs.set(key, Math.max(cost, costs.get(key) ?? 0));
  }
}

/** The limits an answer's headers report, on the local clock; a part is absent when its headers are. */
export function readLimitHeaders(
  headers: Headers,
  receivedAt: number,
): { requests?: { remaining: number; resetAt: number }; budget?: { level: number; at: number; capacity: number; perMs: number } } {
  const skew = clockSkew(headers, receivedAt);
  const remaining = integer(headers.get('x-ratelimit-remaining'));
  const reset = Date.parse(headers.get('x-ratelimit-reset') ?? '');
  const level = integer(headers.get('x-complexity-remaining'));
  const capacity = integer(headers.get('x-complexity-limit'));
  const window = /"complexity";q=(\d+);w=(\d+(?:\.\d+)?)/.exec(headers.get('ratelimit-policy') ?? '');
  return {
    ...(remaining !== undefined && !Number.isNaN(reset) ? { requests: { remaining, resetAt: reset - skew } } : {}),
    ...(level !== undefined && capacity !== undefined
      ? { budget: { level, at: receivedAt, capacity, perMs: window ? Number(window[1]) / (Number(window[2]) * 1000) : 0 } }
      : {}),
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
