import { budgetHoldsAt } from '../platform/limits/limits.arithmetic.js';
import type { LimitPolicies } from '../platform/limits/limits.arithmetic.js';
import { httpDate, secondsUntil, wholePoints } from '../platform/limits/limits.headers.js';
import type { LimitState } from '../platform/limits/limits.headers.js';

/** What a route's request window counts, as its RateLimit policy names it: requests (GraphQL) or reports (ingest). */
export type WindowUnit = 'requests' | 'reports';

/**
 * The limit headers of an authenticated response: Meter's `X-RateLimit-*`
 * and the IETF `RateLimit-Policy` / `RateLimit` fields of
 * draft-ietf-httpapi-ratelimit-headers-10 (structured-field lists with one
 * item per policy), for the route's request window; a window of requests
 * also reports the complexity budget (`X-Complexity-*` and a second item),
 * which counts points, a unit the draft's registry does not have, so it says
 * so in a vendor parameter.
 *
 * Names are written as Meter writes them (`X-RateLimit-Remaining`): HTTP
 * names are case-insensitive, but scripts written for Meter's API look them
 * up in a plain dictionary made from the response's headers (the public
 * Python SDK's `dict(response.headers).get("X-RateLimit-Remaining")`), which
 * finds nothing under another case.
 */
export function limitHeaders(state: LimitState, policies: LimitPolicies, unit: WindowUnit = 'requests'): Record<string, string> {
  const { requests, budget } = policies;
  const remaining = String(state.requests.remaining);
  const reset = httpDate(state.requests.resetAt);
  const windowSeconds = secondsUntil(state.requests.resetAt, state.now);
  if (unit === 'reports') {
    return {
      'X-RateLimit-Remaining': remaining,
      'X-RateLimit-Reset': reset,
      'RateLimit-Policy': `"${unit}";q=${requests.limit};w=${requests.windowMs / 1000}`,
      RateLimit: `"${unit}";r=${state.requests.remaining};t=${windowSeconds}`,
    };
  }
  const points = wholePoints(state.budget.level);
  // the budget refills continuously: the next whole point is the next change a client can see
  const nextPointAt =
    points >= budget.capacity ? state.now : budgetHoldsAt({ level: state.budget.level, at: state.now }, points + 1, budget);
  return {
    'X-RateLimit-Remaining': remaining,
    'X-RateLimit-Reset': reset,
    'X-Complexity-Cost': String(state.budget.cost),
    'X-Complexity-Remaining': String(points),
    'X-Complexity-Limit': String(budget.capacity),
    'X-Complexity-Reset': httpDate(nextPointAt),
    // the window's item as in the branch above, then the budget's: one template each, on the hot path
    'RateLimit-Policy': `"${unit}";q=${requests.limit};w=${requests.windowMs / 1000}, "complexity";q=${budget.capacity};w=${budget.refillMs / 1000};netgraph-unit="points"`,
    RateLimit: `"${unit}";r=${state.requests.remaining};t=${windowSeconds}, "complexity";r=${points};t=${secondsUntil(nextPointAt, state.now)}`,
  };
}
