/** The cookies of a request as a map; malformed pairs are skipped, the first of duplicate names wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    const name = pair.slice(0, Math.max(eq, 0)).trim();
    if (eq < 0 || name === '' || cookies.has(name)) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      cookies.set(name, decodeURIComponent(value));
    } catch {
      // not percent-encoded properly: not one of ours
    }
  }
  return cookies;
}

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
