import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { invariant } from '../kernel/errors.js';
import type { Caller } from '../kernel/caller.js';
import type { ActiveSession } from '../features/user/user.service.js';
import type { Services } from '../services.js';
import { serializeCookie } from './cookies.js';
import { renderPage } from './layout.js';
import type { PageOptions } from './layout.js';
import type { DashboardReads } from './reads.js';
import type { Assets } from './static.js';

/** The cookie holding the session token. */
export const SESSION_COOKIE = 'netgraph_session';

/** What every dashboard page handler works with. */
export interface WebContext {
  readonly config: Config;
  readonly services: Services;
  readonly reads: DashboardReads;
  readonly assets: Assets;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session of a dashboard request; null when signed out. */
    dashboardSession: ActiveSession | null;
  }
  interface FastifyContextConfig {
    /** A dashboard route a signed-out visitor may open (sign-in, assets); every other one redirects to sign-in. */
    public?: boolean;
  }
}

/** Sends a whole HTML page with the status. Signed-in pages are never cached: they hold company data. */
export function sendPage(ctx: WebContext, reply: FastifyReply, status: number, options: Omit<PageOptions, 'assets'>): FastifyReply {
  if (options.session) reply.header('cache-control', 'no-store');
  return reply.code(status).type('text/html; charset=utf-8').send(renderPage({ ...options, assets: ctx.assets.urls }));
}

/** The session of a route that requires one (every non-public route); the signed-in hook guarantees it. */
export function sessionOf(request: FastifyRequest): ActiveSession {
  const session = request.dashboardSession;
  invariant(session !== null, 'web-session-missing');
  return session;
}

/** The caller the session reads as, recorded for the request log line. */
export function callerOf(ctx: WebContext, request: FastifyRequest): Caller {
  const caller = ctx.services.users.callerFor(sessionOf(request).user);
  request.netgraph.caller = caller;
  return caller;
}

/** A Set-Cookie for the session token (or, with an empty token and 0 seconds, its deletion). */
export function sessionCookie(ctx: WebContext, token: string, maxAgeSeconds: number): string {
  return serializeCookie(SESSION_COOKIE, token, { path: '/', maxAgeSeconds, secure: ctx.config.cookieSecure });
}

/** A string field of a parsed form body, or '' when absent. */
export function formField(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** A local path to go back to after sign-in; anything else (other hosts, `//x`, `/\\x`) becomes /networks. */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || !/^\/(?![/\\])[^\s\\]*$/.test(value) || value.startsWith('/sign-')) return '/networks';
  return value;
}
