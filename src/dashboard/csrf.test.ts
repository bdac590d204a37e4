import { describe, expect, it } from 'vitest';
import { generatePreSessionToken, isSameOrigin } from './csrf.js';

describe('isSameOrigin', () => {
  const host = '127.0.0.1:4000';

  it('accepts a request from this host, or one without Origin that the browser does not call cross-site', () => {
    expect(isSameOrigin({ host, origin: 'http://127.0.0.1:4000' })).toBe(true);
    expect(isSameOrigin({ host, origin: 'https://127.0.0.1:4000' })).toBe(true);
    expect(isSameOrigin({ host })).toBe(true);
    expect(isSameOrigin({ host, 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(isSameOrigin({ host, 'sec-fetch-site': 'none' })).toBe(true);
  });

  it('refuses another site, another port, an opaque origin, garbage, and a cross-site fetch', () => {
    expect(isSameOrigin({ host, origin: 'http://evil.example' })).toBe(false);
    expect(isSameOrigin({ host, origin: 'http://127.0.0.1:4001' })).toBe(false);
    expect(isSameOrigin({ host, origin: 'http://127.0.0.1:4000.evil.example' })).toBe(false);
    expect(isSameOrigin({ host, origin: 'null' })).toBe(false);
    expect(isSameOrigin({ host, origin: 'not a url' })).toBe(false);
    expect(isSameOrigin({ host, 'sec-fetch-site': 'cross-site' })).toBe(false);
  });
});

describe('pre-session tokens', () => {
  it('are random and URL-safe', () => {
    const a = generatePreSessionToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(generatePreSessionToken()).not.toBe(a);
  });
});
