import type { FastifyInstance } from 'fastify';
import { settingsShell } from './api-keys.view.js';
import { AUDIT_LOG_PATH, renderAuditLog } from './audit-log.view.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { requireAdmin } from './forms.js';

/** The page shows at most this many entries, the newest; the CLI lists all. */
const MAX_ENTRIES = 200;

/**
 * Settings > Audit log, for admins: the entries of the session's company,
 * newest first, read through the audit service. Members get 403.
 */
export function registerAuditLogPage(web: FastifyInstance, ctx: WebContext): void {
  web.get(AUDIT_LOG_PATH, async (request, reply) => {
    const session = sessionOf(request);
    requireAdmin(session, 'Only admins can read the audit log. Ask an admin of your company.');
    const entries = await ctx.services.audit.list({ companySlug: callerOf(ctx, request).companySlug });
    const newest = entries.slice(-MAX_ENTRIES).reverse();
    const body = settingsShell(renderAuditLog(session, newest, entries.length), session, 'audit-log');
    return sendPage(ctx, reply, 200, { title: 'Audit log', session, section: 'settings', body });
  });
}
