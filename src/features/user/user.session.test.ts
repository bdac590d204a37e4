import { describe, expect, it } from 'vitest';
import { csrfTokenFor, generateSessionToken, hashSessionToken, isWellFormedSessionToken, secretsEqual } from './user.session.js';

describe('session tokens', () => {
  it('are 256 random bits, base64url, stored only as a SHA-256 hash', () => {
    const token = generateSessionToken();
    expect(isWellFormedSessionToken(token)).toBe(true);
    expect(generateSessionToken()).not.toBe(token);
    expect(hashSessionToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionToken(token)).toBe(hashSessionToken(token));
  });

  it('refuses anything else before a lookup', () => {
    for (const token of ['', 'x', `${generateSessionToken()}x`, 'a'.repeat(42) + '!', ' '.repeat(43)]) {
      expect(isWellFormedSessionToken(token)).toBe(false);
    }
  });
});

describe('CSRF tokens', () => {
  it('are fixed per session, differ between sessions, and are neither the token nor its stored hash', () => {
    const a = generateSessionToken();
    const b = generateSessionToken();
    expect(csrfTokenFor(a)).toBe(csrfTokenFor(a));
    expect(csrfTokenFor(a)).not.toBe(csrfTokenFor(b));
    expect(csrfTokenFor(a)).not.toBe(a);
    expect(csrfTokenFor(a)).not.toBe(hashSessionToken(a));
  });

  it('compare equal only when both are present and identical', () => {
    const token = csrfTokenFor(generateSessionToken());
    expect(secretsEqual(token, token)).toBe(true);
    expect(secretsEqual(token, `${token.slice(0, -1)}A` === token ? `${token.slice(0, -1)}B` : `${token.slice(0, -1)}A`)).toBe(false);
    expect(secretsEqual(token, token.slice(1))).toBe(false);
    expect(secretsEqual(token, undefined)).toBe(false);
    expect(secretsEqual(undefined, token)).toBe(false);
    expect(secretsEqual('', '')).toBe(false);
  });
});
