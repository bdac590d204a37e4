import { describe, expect, it } from 'vitest';
import { parseCookies, serializeCookie } from './cookies.js';

describe('cookies', () => {
  it('parses a Cookie header, keeping the first of duplicate names and skipping malformed pairs', () => {
    const cookies = parseCookies('a=1; netgraph_session=abc_-123; a=2; broken; =x; q="quoted"; bad=%E0%A4%A');
    expect([...cookies]).toEqual([
      ['a', '1'],
      ['netgraph_session', 'abc_-123'],
      ['q', 'quoted'],
    ]);
    expect(parseCookies(undefined).size).toBe(0);
  });

  it('writes HttpOnly, SameSite=Lax cookies with a lifetime, Secure when asked', () => {
    expect(serializeCookie('s', 'a b', { path: '/', maxAgeSeconds: 60, secure: false })).toBe('s=a%20b; Path=/; Max-Age=60; HttpOnly; SameSite=Lax');
    expect(serializeCookie('s', '', { path: '/sign-in', maxAgeSeconds: -5, secure: true })).toBe('s=; Path=/sign-in; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
  });
});
