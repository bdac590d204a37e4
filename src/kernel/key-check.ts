/**
 * "Is this key still valid", the one SQL of it: 1 while the API key whose id
 * is `keyId` (an SQL expression: a parameter or a column) exists, is not
 * revoked and has not expired at `now` (a timestamp expression, typed where
 * the store needs it), 0 when it is revoked or expired, NULL when there is no
 * such key. The compiled reads put it first in every statement, the key check
 * on the primary runs it alone, and authentication and writes ask it
 * (api-key.repository.ts). An expired key is refused exactly like a revoked one.
 */
export function keyValidSql(keyId: string, now: string): string {
  return `(SELECT CASE WHEN revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}) THEN 1 ELSE 0 END FROM api_keys WHERE id = ${keyId})`;
}

/** True for what keyValidSql yielded for a valid key (a driver may give the 1 as a number, a bigint or a string). */
export function isValidKeyColumn(value: unknown): boolean {
  return Number(value) === 1;
}
