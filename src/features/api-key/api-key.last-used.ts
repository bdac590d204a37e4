import type { KeyUse } from './api-key.repository.js';

/** How long a process lets a key's last-used time lag while the key is in use. */
export const LAST_USED_REFRESH_MS = 60_000;
/** How often pending last-used times are written. */
const LAST_USED_FLUSH_MS = 1_000;

/**
 * Batches last-used writes: a key's first use in a process is written within
 * a second, then at most once per LAST_USED_REFRESH_MS while it is in use,
 * so requests never wait for a write and the database sees one UPDATE a
 * second at most. The address of the use that made a write due is written
 * with its time, in the same statement.
 */
export function createLastUsedTracker(write: (uses: readonly KeyUse[], at: string) => Promise<void>, now: () => Date) {
  const written = new Map<number, number>();
  /** Key id to the time and address of the request that made it due. */
  const pending = new Map<number, { time: number; address: string | null }>();
  let timer: NodeJS.Timeout | undefined;
  let report: (error: unknown) => void = () => undefined;

  const writePending = async () => {
    if (pending.size === 0) return;
    const due = [...pending];
    pending.clear();
    // one statement for all: every pending use happened within the last second
    const at = Math.max(...due.map(([, use]) => use.time));
    try {
      await write(
        due.map(([id, use]) => ({ id, address: use.address })),
        new Date(at).toISOString(),
      );
    } catch (error) {
      for (const [id, use] of due) {
        const later = pending.get(id);
        if (later === undefined || later.time < use.time) pending.set(id, use);
      }
      report(error);
    }
  };

  // one write at a time, and flush() resolves only when every earlier write has landed
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => (writing = writing.then(writePending));

  return {
    flush,
    seed(id: number, lastUsedAt: string | null) {
      if (!written.has(id)) written.set(id, lastUsedAt === null ? 0 : Date.parse(lastUsedAt));
    },
    touch(id: number, address: string | null) {
      const at = now().getTime();
      if (at - (written.get(id) ?? 0) < LAST_USED_REFRESH_MS) return;
      written.set(id, at);
      pending.set(id, { time: at, address });
    },
    start(onError: (error: unknown) => void) {
      report = onError;
      timer ??= setInterval(() => void flush(), LAST_USED_FLUSH_MS).unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
