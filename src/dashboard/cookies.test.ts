import { describe, expect, it } from 'vitest';
import { serializeCookie } from './cookies.js';

describe('cookies', () => {
  it('writes HttpOnly, SameSite=Lax cookies with a lifetime, Secure when asked', () => {
    expect(serializeCookie('s', 'a b', { path: '/', maxAgeSeconds: 60, secure: false })).toBe('s=a%20b; Path=/; Max-Age=60; HttpOnly; SameSite=Lax');
    expect(serializeCookie('s', '', { path: '/sign-in', maxAgeSeconds: -5, secure: true })).toBe('s=; Path=/sign-in; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
  });
});
