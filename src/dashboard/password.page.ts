import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PASSWORD_PATH, settingsShell } from './api-keys.view.js';
import { SESSION_COOKIE, formField, sendPage, sessionCookie, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { formState, refusedForm } from './forms.js';
import type { FormState } from './forms.js';
import { PASSWORD_FIELDS, renderPasswordPage } from './password.view.js';

/**
 * Settings > Account > Password, for every user: one call to the user
 * service, which checks the current password, ends every session of the
 * account and starts a new one for this browser (its cookie is replaced).
 * A refusal re-renders the form with the message next to its field and
 * nothing typed kept.
 */
export function registerPasswordPage(web: FastifyInstance, ctx: WebContext): void {
  const send = (request: FastifyRequest, reply: FastifyReply, status: number, form: FormState, changed = false) => {
    const session = sessionOf(request);
    const body = settingsShell(renderPasswordPage(session, form, changed), session, 'password');
    return sendPage(ctx, reply, status, { title: 'Password', session, section: 'settings', body });
  };

  web.get(PASSWORD_PATH, async (request, reply) => send(request, reply, 200, formState(), (request.query as { changed?: string }).changed === '1'));

  web.post(PASSWORD_PATH, async (request, reply) => {
    sessionOf(request);
    const [current, next, confirm] = ['current', 'next', 'confirm'].map((name) => formField(request.body, name)) as [string, string, string];
    if (next !== confirm) return send(request, reply, 400, { values: {}, errors: { confirm: 'The two new passwords differ: type the same one twice.' } });
    const token = request.cookies[SESSION_COOKIE] ?? '';
    try {
      const signedIn = await ctx.services.users.changePassword(token, { current, next, address: request.ip });
      reply.header('set-cookie', sessionCookie(ctx, signedIn.token, ctx.config.sessionTtlMinutes * 60));
      return reply.redirect(`${PASSWORD_PATH}?changed=1`, 303);
    } catch (error) {
      // a locked account (TOO_MANY_REQUESTS) or an ended session goes to the error page
      return send(request, reply, 400, refusedForm(error, {}, PASSWORD_FIELDS, 'user'));
    }
  });
}
