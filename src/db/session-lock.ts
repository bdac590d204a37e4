import pg from 'pg';
import type { DatabaseTarget } from '../config.js';

/** A lock one process holds until it releases it or its connection ends. */
export interface SessionLock {
  /** Resolves when the lock is let go (its connection closed). */
  release(): Promise<void>;
}

/** The first key of the two-key advisory locks netgraph takes for one role per database schema. */
const SESSION_LOCK_CLASS = 48_151;

/**
 * Tries to take the named lock for this process, without waiting: a lock or
 * undefined when another process holds it. On PostgreSQL a session-level
 * advisory lock on a connection of its own (a pooled connection would carry
 * the lock to whoever uses it next), keyed by the schema, so test schemas and
 * installations sharing one database do not contend; it ends with the
 * process, so a crashed holder frees it. On SQLite always granted: the
 * processes of one file are one `netgraph serve`, whose primary picks the
 * one that takes it (src/cli/serve.ts).
 */
export async function tryTakeSessionLock(target: DatabaseTarget, name: string): Promise<SessionLock | undefined> {
  if (target.dialect === 'sqlite') return { release: async () => undefined };
  const client = new pg.Client({ connectionString: target.url });
  // a dropped connection frees the lock; the holder learns it at its next check, so the error must not crash the process
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1::int, hashtext(current_schema() || $2)) AS locked',
      [SESSION_LOCK_CLASS, `:${name}`],
    );
    if (result.rows[0]?.locked === true) return { release: () => client.end() };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  await client.end();
  return undefined;
}
