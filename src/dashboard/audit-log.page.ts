import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { settingsShell } from './api-keys.view.js';
import { AUDIT_LOG_PATH, renderAuditLog } from './audit-log.view.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { requireAdmin } from './forms.js';

/** Entries per page; older pages follow a link, and the CLI lists all. */
export const AUDIT_PAGE_SIZE = 100;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Settings > Audit log, for admins: the entries of the session's company,
 * newest first, a page at a time (`?before=<entry id>` for older ones), read
 * through the audit service. Members get 403.
 */
export function registerAuditLogPage(web: FastifyInstance, ctx: WebContext): void {
  web.get(AUDIT_LOG_PATH, async (request, reply) => {
    const session = sessionOf(request);
    requireAdmin(session, 'Only admins can read the audit log. Ask an admin of your company.');
    const { before } = request.query as { before?: string };
    if (before !== undefined && !UUID_PATTERN.test(before)) throw new AppError('NOT_FOUND', 'There is no such page of the audit log.');
    const page = await ctx.services.audit.newestPage(callerOf(ctx, request).companyId, { limit: AUDIT_PAGE_SIZE, ...(before === undefined ? {} : { before }) });
    const body = settingsShell(renderAuditLog(session, page.entries, { older: page.older, paged: before !== undefined }), session, 'audit-log');
    return sendPage(ctx, reply, 200, { title: 'Audit log', session, section: 'settings', body });
  });
}
