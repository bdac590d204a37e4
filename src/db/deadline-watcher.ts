/** Something with a deadline: told once, by the watcher, when the deadline passes while it is still registered. */
export interface DeadlineEntry {
  /** A performance.now() time. */
  readonly deadline: number;
  /** Called once the deadline has passed; the entry is no longer registered by then. */
  onExpired(): void;
  /**
   * The watcher's links while the entry is registered (an intrusive list, as
   * Node's own timers keep): set and cleared by the watcher only. Declare
   * them (as null) on a class whose instances are registered, so their shape
   * does not change when they are.
   */
  watchPrev?: DeadlineEntry | null;
  watchNext?: DeadlineEntry | null;
}

/** Watches many deadlines with one timer; see createDeadlineWatcher. */
export interface DeadlineWatcher {
  /** Registers `entry` until it expires or is deleted. Never calls onExpired synchronously, even for a past deadline. */
  add(entry: DeadlineEntry): void;
  /** Unregisters `entry` (nothing happens if it has expired already). */
  delete(entry: DeadlineEntry): void;
}

/** The longest delay setTimeout takes; it turns anything over 2^31 - 1 into 1. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Creates a watcher that serves every registered deadline with a single
 * timer, armed for the earliest one and only while something is registered.
 *
 * Why one exact timer rather than a timer per entry or a periodic sweep: the
 * reads of one process all get `now + REQUEST_TIMEOUT_MS`, so a new entry is
 * almost never earlier than the armed one, and registering costs a link in a list
 * and a comparison. Most reads finish long before their deadline, so the timer
 * mostly wakes to find nothing due and re-arms for the earliest entry still
 * registered: about one wake-up per timeout period under steady load, where a
 * periodic sweep would wake every few milliseconds and answer up to its period
 * late. The timer is unref'd: an in-flight read keeps the process alive
 * through its own socket, and a watcher must never do so on its own.
 */
export function createDeadlineWatcher(): DeadlineWatcher {
  // registered entries, oldest first, linked through their own fields. Not a Set: under load its hash
  // tables churn with every read, and dead tables kept each read's objects reachable for the
  // young-generation collector until a full collection (docs/benchmarks.md)
  let head: DeadlineEntry | null = null;
  let tail: DeadlineEntry | null = null;
  let timer: NodeJS.Timeout | undefined;
  // the deadline the timer fires for; Infinity while disarmed
  let armedFor = Infinity;
  // whether the timer fires at armedFor itself, rather than earlier because the delay was capped
  let exact = false;

  function registered(entry: DeadlineEntry): boolean {
    return head === entry || (entry.watchPrev ?? null) !== null;
  }

  function unlink(entry: DeadlineEntry): void {
    const prev = entry.watchPrev ?? null;
    const next = entry.watchNext ?? null;
    if (prev === null) head = next;
    else prev.watchNext = next;
    if (next === null) tail = prev;
    else next.watchPrev = prev;
    entry.watchPrev = null;
    entry.watchNext = null;
  }

  function arm(at: number): void {
    if (timer !== undefined) clearTimeout(timer);
    const delay = Math.max(0, at - performance.now());
    armedFor = at;
    exact = delay <= MAX_DELAY_MS;
    timer = setTimeout(sweep, Math.min(delay, MAX_DELAY_MS));
    timer.unref();
  }

  function disarm(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    armedFor = Infinity;
  }

  function sweep(): void {
    // a timer can fire a fraction of a millisecond before performance.now() reaches the time it was armed for;
    // that deadline is due all the same, as it was with a timer of its own
    const now = exact ? Math.max(performance.now(), armedFor) : performance.now();
    timer = undefined;
    armedFor = Infinity;
    const expired: DeadlineEntry[] = [];
    let next = Infinity;
    for (let entry = head; entry !== null; ) {
      const following: DeadlineEntry | null = entry.watchNext ?? null;
      if (entry.deadline <= now) {
        unlink(entry);
        expired.push(entry);
      } else if (entry.deadline < next) {
        next = entry.deadline;
      }
      entry = following;
    }
    // re-armed before the callbacks run, so an entry one of them adds is compared with the deadline really armed
    if (next !== Infinity) arm(next);
    for (const entry of expired) entry.onExpired();
  }

  return {
    add(entry) {
      if (registered(entry)) return;
      entry.watchPrev = tail;
      entry.watchNext = null;
      if (tail === null) head = entry;
      else tail.watchNext = entry;
      tail = entry;
      if (entry.deadline < armedFor) arm(entry.deadline);
    },
    delete(entry) {
      if (!registered(entry)) return;
      unlink(entry);
      // a timer left armed for an entry that is gone only finds nothing due, and re-arms for the earliest left
      if (head === null) disarm();
    },
  };
}
