import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new session token: 32 random bytes, base64url. Only its hash is stored. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** True when `token` has the shape of a session token, so garbage needs no database lookup. */
export function isWellFormedSessionToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/** The stored form of a session token: SHA-256, hex. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The CSRF token of a session: an HMAC keyed by the session token itself.
 * Forms carry it; a page of another site cannot read it, and it cannot be
 * derived from what the store keeps (the token's hash), so nothing more is
 * stored. It changes with every sign-in.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('netgraph csrf v1').digest('base64url');
}

/** Compares two secret strings in constant time; false for any missing value. */
export function secretsEqual(expected: string | undefined, actual: string | undefined): boolean {
  if (expected === undefined || actual === undefined || expected === '') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(actual);
  return a.length === b.length && timingSafeEqual(a, b);
}
