import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * CSRF defence for the dashboard, in two layers:
 * - every state-changing form carries a token a page of another site cannot
 *   know: the session's token (user.session.ts) once signed in, and before
 *   sign-in a random token that must equal the `netgraph_csrf` cookie (a
 *   double-submit cookie, so login CSRF is refused too);
 * - a request whose Origin is another site, or that the browser labels
 *   cross-site (Sec-Fetch-Site), is refused before the token is looked at.
 * The SameSite=Lax session cookie is a third layer, not relied on alone.
 *
 * Hand-written rather than @fastify/csrf-protection, which would weaken this:
 * with netgraph's own sessions (a table, not @fastify/session) its secret
 * lives in a cookie of its own that outlives sign-out and a sign-in as
 * someone else, where the session's token here is an HMAC of the session
 * token and dies with it on every process; binding its tokens to the session
 * takes a server-wide HMAC key netgraph would have to configure and share. It
 * has no Origin / Sec-Fetch-Site check (the first layer above), and it answers
 * a refusal with a 403 error where the sign-in form goes back to itself.
 */

/** The cookie holding the pre-session CSRF token of the sign-in form. */
export const PRE_SESSION_COOKIE = 'netgraph_csrf';
/** The form field carrying the CSRF token. */
export const CSRF_FIELD = '_csrf';

/** A new pre-session token for the sign-in form. */
export function generatePreSessionToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * False when the request provably comes from another site: an Origin other
 * than this host (or the opaque `null`), or `Sec-Fetch-Site: cross-site`.
 * Requests without either header (old browsers, scripts) pass here and are
 * left to the token check.
 */
export function isSameOrigin(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  if (typeof origin === 'string') {
    if (origin === 'null') return false;
    try {
      return new URL(origin).host === headers.host;
    } catch {
      return false;
    }
  }
  return headers['sec-fetch-site'] !== 'cross-site';
}
