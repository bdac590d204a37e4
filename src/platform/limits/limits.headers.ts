/** A key's limits as one response reports them. */
export interface LimitState {
  /** The time the numbers hold at, in ms since the epoch. */
  readonly now: number;
  readonly requests: { readonly remaining: number; readonly resetAt: number };
  /** What this request cost (0 when it ran nothing) and the budget's level after it. */
  readonly budget: { readonly cost: number; readonly level: number };
}

/**
 * How many formatted seconds httpDate keeps. Each response asks for two (the
 * window's reset, the next budget point) and the requests of one second ask
 * for the same few, so a handful spares a Date and its formatting nearly
 * every time. The string depends on the second alone, so a hit is exact.
 */
const RECENT_DATES = 4;
const recentSeconds: number[] = [];
const recentDates: string[] = [];
// the oldest entry, replaced next
let nextSlot = 0;

/**
 * An RFC 9110 HTTP-date (IMF-fixdate), e.g. `Sun, 02 Mar 2026 15:30:45 GMT`,
 * rounded up to the next whole second so that a client waiting until then is
 * never early.
 */
export function httpDate(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const cached = recentSeconds.indexOf(seconds);
  if (cached !== -1) return recentDates[cached] as string;
  const date = new Date(seconds * 1000).toUTCString();
  recentSeconds[nextSlot] = seconds;
  recentDates[nextSlot] = date;
  nextSlot = (nextSlot + 1) % RECENT_DATES;
  return date;
}

/** Whole seconds from `now` until `at`, rounded up; 0 when `at` has passed. */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Whole points left in a budget of a fractional level. */
export function wholePoints(level: number): number {
  return Math.max(0, Math.floor(level));
}
