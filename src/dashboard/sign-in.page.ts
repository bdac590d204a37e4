import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../kernel/errors.js';
import { SESSION_COOKIE, formField, safeNext, sendPage, sessionCookie, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { serializeCookie } from './cookies.js';
import { CSRF_FIELD, PRE_SESSION_COOKIE, generatePreSessionToken } from './csrf.js';
import { html, raw } from './html.js';
import { logo, notice } from './layout.js';
import type { SafeHtml } from './html.js';

const PRE_SESSION_MAX_AGE_SECONDS = 2 * 3600;

/** Routes of signing in and out; `/` sends visitors where they belong. */
export function registerSignInPages(web: FastifyInstance, ctx: WebContext): void {
  web.get('/', { config: { public: true } }, async (request, reply) =>
    reply.redirect(request.dashboardSession ? '/networks' : '/sign-in', 302),
  );

  web.get('/sign-in', { config: { public: true } }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    if (request.dashboardSession) return reply.redirect(safeNext(query.next), 302);
    const message = query.expired !== undefined
      ? notice('warning', 'Your session or the sign-in form expired. Please sign in again.')
      : query['signed-out'] !== undefined
        ? notice('success', 'You are signed out.')
        : undefined;
    return sendSignIn(ctx, reply, 200, { next: safeNext(query.next), email: '', message });
  });

  web.post('/sign-in', { config: { public: true } }, async (request, reply) => signIn(ctx, request, reply));

  web.post('/sign-out', async (request, reply) => {
    sessionOf(request);
    const token = request.cookies[SESSION_COOKIE];
    if (token !== undefined) await ctx.services.users.signOut(token);
    reply.header('set-cookie', sessionCookie(ctx, '', 0));
    return reply.redirect('/sign-in?signed-out=1', 303);
  });
}

/** Checks the form's email and password; on success sets the session cookie and goes on, else shows the form again with why. */
async function signIn(ctx: WebContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const email = formField(request.body, 'email');
  const next = safeNext(formField(request.body, 'next'));
  try {
    const signedIn = await ctx.services.users.signIn({ email, password: formField(request.body, 'password'), address: request.ip });
    reply.header('set-cookie', [
      sessionCookie(ctx, signedIn.token, ctx.config.sessionTtlMinutes * 60),
      serializeCookie(PRE_SESSION_COOKIE, '', { path: '/sign-in', maxAgeSeconds: 0, secure: ctx.config.cookieSecure }),
    ]);
    return reply.redirect(next, 303);
  } catch (error) {
    if (isAppError(error, 'UNAUTHENTICATED')) {
      return sendSignIn(ctx, reply, 401, { next, email, message: notice('error', error.message) });
    }
    if (isAppError(error, 'TOO_MANY_REQUESTS')) {
      reply.header('retry-after', String(error.details.retryAfterSeconds ?? 60));
      return sendSignIn(ctx, reply, 429, { next, email, message: notice('error', error.message) });
    }
    throw error;
  }
}

/** Renders the sign-in form with a fresh pre-session CSRF token in the form and its cookie. */
function sendSignIn(
  ctx: WebContext,
  reply: FastifyReply,
  status: number,
  form: { next: string; email: string; message: SafeHtml | undefined },
): FastifyReply {
  const token = generatePreSessionToken();
  reply.header('set-cookie', serializeCookie(PRE_SESSION_COOKIE, token, { path: '/sign-in', maxAgeSeconds: PRE_SESSION_MAX_AGE_SECONDS, secure: ctx.config.cookieSecure }));
  reply.header('cache-control', 'no-store');
  const body = html`<section class="auth">
  <div class="auth-brand">${logo('lg')}<span>netgraph</span></div>
  <div class="card auth-card">
    <h1>Sign in</h1>
    <p class="muted">to manage your company's networks and API keys.</p>
    ${form.message ?? ''}
    <form method="post" action="/sign-in" class="form">
      <input type="hidden" name="${CSRF_FIELD}" value="${token}">
      <input type="hidden" name="next" value="${form.next}">
      <label class="field">
        <span class="field-label">Email</span>
        <input type="email" name="email" value="${form.email}" autocomplete="username" required ${form.email ? '' : raw('autofocus')}>
      </label>
      <label class="field">
        <span class="field-label">Password</span>
        <input type="password" name="password" autocomplete="current-password" required ${form.email ? raw('autofocus') : ''}>
      </label>
      <button type="submit" class="btn btn-primary btn-block">Sign in</button>
    </form>
  </div>
  <p class="auth-foot muted">No account? Ask an admin of your company, or run <code>netgraph users create</code>.</p>
</section>`;
  return sendPage(ctx, reply, status, { title: 'Sign in', session: null, body });
}
