import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config.js';
import { invariant, isAppError } from '../kernel/errors.js';
import { secretsEqual } from '../features/user/user.session.js';
import type { Services } from '../services.js';
import { registerApiKeyPages } from './api-keys.page.js';
import { registerWebhookPages } from './webhooks.page.js';
import { registerAlertReceiverPages } from './alert-receivers.page.js';
import { registerAuditLogPage } from './audit-log.page.js';
import { registerCollectorPages } from './collectors.page.js';
import { registerDiscoveredPages } from './discovered.page.js';
import { registerCollectorRangePages } from './collector-ranges.page.js';
import { SESSION_COOKIE, formField, sendPage } from './context.js';
import type { WebContext } from './context.js';
import { CSRF_FIELD, PRE_SESSION_COOKIE, isSameOrigin } from './csrf.js';
import { registerDevicePages } from './device.page.js';
import { renderErrorBody } from './errors.page.js';
import { registerNetworkFormPages } from './network-forms.page.js';
import { registerNetworkItemPages } from './network-items.page.js';
import { registerNetworkPages } from './networks.page.js';
import { registerPasswordPage } from './password.page.js';
import { createDashboardReads } from './reads.js';
import { registerSecurityHeaders, setSecurityHeaders } from './security-headers.js';
import { registerSignInPages } from './sign-in.page.js';
import { ASSET_ROUTE, loadAssets, registerAssetRoute } from './static.js';

/** Form bodies of the dashboard are small; anything larger is refused. */
const FORM_LIMIT_BYTES = 64 * 1024;

type Cookies = Readonly<Record<string, string | undefined>>;

/** The dashboard's hook into the app's 404 handling. */
export interface Dashboard {
  /** Answers an unknown path a browser asked for: sign-in for a signed-out visitor, else an HTML 404 page. */
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
}

/**
 * Registers the web dashboard at `/`, in its own encapsulated context: its
 * plugins (cookies, form bodies, security headers, static files), session
 * hook, CSRF check and HTML error pages apply to its routes only, never to
 * the API. It reads through the API's executor, read service and schema,
 * with a caller built from the session.
 */
export async function registerDashboard(
  app: FastifyInstance,
  deps: { config: Config; services: Services; schema: GraphQLSchema; classifyError: (error: unknown) => unknown },
): Promise<Dashboard> {
  const reads = createDashboardReads(deps.schema, deps.services.reads);
  const ctx: WebContext = { config: deps.config, services: deps.services, reads, assets: loadAssets() };
  const classifyError = deps.classifyError;
  // the app's 404 handler runs outside the dashboard's context, so it reads cookies with the context's parser
  let parseCookie: ((header: string) => Cookies) | undefined;

  await app.register(async (web) => {
    await web.register(fastifyCookie);
    parseCookie = (header) => web.parseCookie(header);
    await registerSecurityHeaders(web);
    // the last of repeated names wins, as a form's fields are read (fast-querystring, the default, would give an array)
    await web.register(fastifyFormbody, { bodyLimit: FORM_LIMIT_BYTES, parser: (body) => Object.fromEntries(new URLSearchParams(body)) });
    web.decorateRequest('dashboardSession', null);
    web.addHook('onRequest', async (request) => {
      request.netgraph.deadline = performance.now() + ctx.config.requestTimeoutMs;
      // static files are the same for everyone: no session lookup for them
      if (request.routeOptions.url !== ASSET_ROUTE) request.dashboardSession = await loadSession(ctx, request.cookies);
    });
    web.addHook('preHandler', async (request, reply) => guard(ctx, request, reply));
    web.setErrorHandler((error: FastifyError, request, reply) => sendError(ctx, classifyError(error), error, request, reply));
    await registerAssetRoute(web, ctx.assets);
    registerSignInPages(web, ctx);
    registerNetworkPages(web, ctx);
    registerNetworkFormPages(web, ctx);
    registerNetworkItemPages(web, ctx);
    registerDevicePages(web, ctx);
    registerApiKeyPages(web, ctx);
    registerWebhookPages(web, ctx);
    registerAlertReceiverPages(web, ctx);
    registerCollectorPages(web, ctx);
    registerDiscoveredPages(web, ctx);
    registerCollectorRangePages(web, ctx);
    registerAuditLogPage(web, ctx);
    registerPasswordPage(web, ctx);
  });

  return {
    async notFound(request, reply) {
      setSecurityHeaders(request, reply);
      invariant(parseCookie !== undefined, 'web-not-found-before-register');
      const session = await loadSession(ctx, parseCookie(request.headers.cookie ?? ''));
      if (!session) return reply.redirect(`/sign-in?next=${encodeURIComponent(request.url)}`, 302);
      return sendPage(ctx, reply, 404, { title: 'Page not found', session, body: renderErrorBody(404, 'There is no page at this address.') });
    },
  };
}

async function loadSession(ctx: WebContext, cookies: Cookies) {
  const token = cookies[SESSION_COOKIE];
  return token === undefined ? null : ((await ctx.services.users.resolveSession(token)) ?? null);
}

/**
 * Runs before every dashboard handler: signed-out visitors of non-public
 * pages go to sign-in, and every POST must come from this site and carry
 * the right CSRF token (the session's, or the sign-in form's cookie pair).
 */
async function guard(ctx: WebContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const session = request.dashboardSession;
  const isPublic = request.routeOptions.config.public === true;
  if (!session && !isPublic) {
    if (request.method === 'GET' || request.method === 'HEAD') {
      return reply.redirect(`/sign-in?next=${encodeURIComponent(request.url)}`, 302);
    }
    return reply.redirect('/sign-in?expired=1', 303);
  }
  if (request.method !== 'POST') return undefined;
  const sent = formField(request.body, CSRF_FIELD);
  const expected = isPublic ? request.cookies[PRE_SESSION_COOKIE] : session?.csrfToken;
  if (isSameOrigin(request.headers) && secretsEqual(expected, sent)) return undefined;
  request.log.warn({ path: request.url.split('?')[0] }, 'dashboard form refused: cross-site or missing CSRF token');
  if (isPublic) return reply.redirect('/sign-in?expired=1', 303);
  return sendPage(ctx, reply, 403, {
    title: 'Form expired',
    session,
    body: renderErrorBody(403, 'This form expired or came from another site, so nothing was changed. Go back, reload the page and try again.'),
  });
}

/** Errors of dashboard routes as HTML pages: an AppError shows its message, anything else a 500 with the request id. */
function sendError(ctx: WebContext, classified: unknown, error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const session = request.dashboardSession ?? null;
  if (isAppError(classified)) {
    const status = classified.status === 200 ? 400 : classified.status;
    if (classified.code === 'SERVICE_UNAVAILABLE') reply.header('retry-after', '5');
    return sendPage(ctx, reply, status, { title: 'Something went wrong', session, body: renderErrorBody(status, classified.message) });
  }
  const status = error.statusCode ?? 500;
  if (status < 500) {
    return sendPage(ctx, reply, status, { title: 'Bad request', session, body: renderErrorBody(status, 'The request could not be read. Go back and try again.') });
  }
  request.log.error({ err: error, requestId: request.id }, 'unexpected error');
  return sendPage(ctx, reply, 500, {
    title: 'Something went wrong',
    session,
    body: renderErrorBody(500, 'Something went wrong on our side. Try again; if it keeps happening, report it with this request id.', request.id),
  });
}
