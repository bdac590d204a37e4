/**
 * The change feed's cursors (docs/changes.md): base64url of
 * `<txid>.<id>`, the change's transaction id (0 on SQLite) and row id, the
 * feed's order. The compiled read builds them in SQL (dialect.base64url);
 * the webhook dispatcher with encodeCursor; decodeCursor reads them back.
 */

/** The cursor of the change at (`txid`, `id`): what the feed's `cursor` answers for it, and webhook deliveries carry. */
export function encodeCursor(txid: number, id: number): string {
  return Buffer.from(`${txid}.${id}`, 'latin1').toString('base64url');
}

/** The position a cursor names; undefined when it is no cursor of the feed (also for null and non-text values). */
export function decodeCursor(value: unknown): { txid: number; id: number } | undefined {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) return undefined;
  const match = /^(\d{1,18})\.(\d{1,18})$/.exec(Buffer.from(value, 'base64url').toString('latin1'));
  if (match === null) return undefined;
  const txid = Number(match[1]);
  const id = Number(match[2]);
  return Number.isSafeInteger(txid) && Number.isSafeInteger(id) ? { txid, id } : undefined;
}
