import { sql } from 'kysely';
import type { Kysely } from 'kysely';

const DAY_MS = 86_400_000;

/** A day's partition name: `<table>_pYYYYMMDD`. */
function partitionName(table: string, dayStart: number): string {
  return `${table}_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * PostgreSQL: makes sure `table` (partitioned by day on observed_at) has a
 * partition for every UTC day from `fromMs` to `toMs`. A day whose rows went
 * to the DEFAULT partition already (the server was down when it began, or a
 * clock jumped) keeps them there: PostgreSQL refuses such a partition, and
 * expiry deletes those rows in batches instead. So does a concurrent
 * creator's race: another process made the partition.
 */
export async function ensureDailyPartitions(db: Kysely<unknown>, table: string, fromMs: number, toMs: number): Promise<void> {
  for (let day = Math.floor(fromMs / DAY_MS) * DAY_MS; day <= toMs; day += DAY_MS) {
    const from = new Date(day).toISOString();
    const to = new Date(day + DAY_MS).toISOString();
    try {
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(partitionName(table, day))} PARTITION OF ${sql.table(table)} FOR VALUES FROM (${sql.lit(from)}) TO (${sql.lit(to)})`.execute(db);
    } catch {
      // see above: the rows stay in DEFAULT, or the partition exists
    }
  }
}

/**
 * PostgreSQL: drops the day partitions of `table` that end at or before
 * `cutoffMs`: expiry without a row-by-row delete. Returns how many went.
 */
export async function dropPartitionsBefore(db: Kysely<unknown>, table: string, cutoffMs: number): Promise<number> {
  const partitions = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    WHERE p.relname = ${table} AND n.nspname = current_schema()`.execute(db);
  let dropped = 0;
  for (const { name } of partitions.rows) {
    const match = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
    if (match === null) continue;
    const dayEnd = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) + DAY_MS;
    if (dayEnd > cutoffMs) continue;
    await sql`DROP TABLE IF EXISTS ${sql.table(name)}`.execute(db);
    dropped += 1;
  }
  return dropped;
}
