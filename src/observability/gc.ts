import v8 from 'node:v8';

/** The V8 flag a server process turns off, and which an operator's own setting of it (in Node's flags) overrides. */
const PRETENURING = 'allocation-site-pretenuring';

/**
 * Turns off V8's allocation-site pretenuring in a server process, unless
 * `execArgv` (Node's command-line flags) sets it either way.
 *
 * V8 watches where objects are allocated, and when many of one place's
 * objects survive a young-generation collection it allocates that place's
 * later objects directly in the old generation. A request's objects live for
 * a millisecond or two, but while the young generation is still small after
 * start, or shrunk again after an idle spell, enough of them survive for V8
 * to make that decision, and it sticks: from then on each request leaves
 * garbage in the old generation, and whatever young objects it points to
 * survive every scavenge. Measured on 2026-11-26 (docs/benchmarks.md, "Two
 * kinds of worker"): in 11 of 16 starts of two servers a worker or more fell
 * into it, with 20% of each scavenge surviving instead of under 1%, 2.7 MB
 * promoted per scavenge instead of 26 kB, and from 25% more to twice the CPU
 * per point lookup for the rest of its life; with pretenuring off no worker
 * did in 10 starts. A server's allocations are the short-lived kind the
 * young generation is made for, so it gives nothing up.
 *
 * The flag is read at each collection, so setting it at run time (before the
 * first request) takes effect; Node does not accept it in NODE_OPTIONS.
 */
export function turnOffPretenuring(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((arg) => arg === `--${PRETENURING}` || arg === `--no-${PRETENURING}`)) return;
  v8.setFlagsFromString(`--no-${PRETENURING}`);
}
