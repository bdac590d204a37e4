/*
 * Cookies are read by @fastify/cookie (request.cookies, in the dashboard's
 * context). They are still written here, not with its reply.setCookie: that
 * writes the attributes in another order (Max-Age before Path, Secure before
 * SameSite), and test/dashboard.test.ts holds these Set-Cookie headers byte
 * for byte. Browsers read either order the same: switching is a matter of
 * those assertions, not of behaviour.
 */

/** Attributes of a cookie netgraph sets. Every one is HttpOnly and SameSite=Lax. */
export interface CookieOptions {
  readonly path: string;
  /** Seconds until the browser drops it; 0 deletes it now. */
  readonly maxAgeSeconds: number;
  readonly secure: boolean;
}

/** A Set-Cookie value: HttpOnly, SameSite=Lax, with the given path, lifetime and Secure flag. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
