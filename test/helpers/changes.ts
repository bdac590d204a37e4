import type { TestApp } from './app.js';

/**
 * Waits until the feed serves every change written so far: on PostgreSQL
 * until every transaction older than the newest change has finished, in the
 * whole cluster (docs/changes.md: a transaction of another test, or another
 * database, may hold the feed back for a moment; never make it skip).
 */
export async function settled(app: TestApp): Promise<void> {
  if (app.kind !== 'postgres') return;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await app.server.store.selectRow(
      'SELECT (SELECT max(txid) FROM changes) < pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS served',
      [],
    );
    if (row?.served !== false) return;
    if (Date.now() > deadline) throw new Error('the feed did not catch up within 10 s: a long transaction is open on the cluster');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
