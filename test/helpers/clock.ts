/** A clock tests move by hand: rate limits read it instead of the real time. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

/** A test clock, by default at Sun, 01 Mar 2026 15:30:00 GMT. */
export function createTestClock(start = Date.UTC(2026, 2, 1, 15, 30, 0)): TestClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}
