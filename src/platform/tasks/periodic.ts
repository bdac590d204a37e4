/** What background tasks report their failures to. */
export interface TaskLog {
  warn(details: object, message: string): void;
}

/**
 * Background tasks of a server process on timers, each never overlapping
 * itself; a failure is logged and the task runs again at its next tick.
 * `again` (when given) says from a run's result that more work waits, and
 * the task then runs again at once instead of at its next tick (a backlog
 * drains without waiting for the timer). Every task also runs once at start.
 */
export function createPeriodicTasks(log: TaskLog) {
  let stopped = false;
  const running = new Set<Promise<unknown>>();
  const timers: NodeJS.Timeout[] = [];
  return {
    every<T>(ms: number, name: string, task: () => Promise<T>, again: (result: T) => boolean = () => false): void {
      let busy = false;
      const tick = () => {
        if (busy || stopped) return;
        busy = true;
        const run = (async () => {
          while (!stopped && again(await task()));
        })()
          .catch((error: unknown) => log.warn({ err: error }, `${name} failed; will retry`))
          .finally(() => {
            busy = false;
            running.delete(run);
          });
        running.add(run);
      };
      tick();
      timers.push(setInterval(tick, ms).unref());
    },

    /** Stops the timers and waits for the runs in progress. */
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running);
    },
  };
}
