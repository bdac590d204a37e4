/**
 * A throwaway PostgreSQL primary and streaming replica, for tests that need a
 * replica to lag, pause or vanish. The code is scripts/cluster/replica.mjs
 * (shared with `npm run chaos --with-replica`); this file gives it its types.
 */

/** A running primary and its streaming replica; see scripts/cluster/replica.mjs. */
export interface ReplicaPair {
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  waitForReplay(timeoutMs?: number): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  stopPrimary(): Promise<void>;
  startPrimary(): Promise<void>;
  stop(): Promise<void>;
}

interface ReplicaModule {
  postgresBinaries(): string | undefined;
  startReplicaPair(bin: string): Promise<ReplicaPair>;
}

// a plain .mjs of scripts/ (outside tsc's include), so it is loaded at run time and typed here
const replica = (await import(new URL('../../scripts/cluster/replica.mjs', import.meta.url).href)) as ReplicaModule;

/** The PostgreSQL bin folder (PG_BIN, else the newest Debian one), or undefined with a notice; throws when CI=true and absent. */
export const postgresBinaries: () => string | undefined = replica.postgresBinaries;

/** initdb a primary, pg_basebackup -R a replica of it, start both (free ports, a temporary folder). */
export const startReplicaPair: (bin: string) => Promise<ReplicaPair> = replica.startReplicaPair;
