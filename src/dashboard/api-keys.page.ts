import { TEXT_MAX } from '../kernel/rules.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_NOT_FOUND, AppError, isAppError } from '../kernel/errors.js';
import { isUuid } from '../kernel/formats.js';
import type { ApiKeyInfo } from '../features/api-key/api-key.service.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { callerOf, formField, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { renderCreatedKey, renderKeyList, renderRevokeConfirmation, settingsShell } from './api-keys.view.js';
import type { KeyForm } from './api-keys.view.js';
import { requireAdmin as requireAdminTo } from './forms.js';
import { REQUEST_WINDOWS, renderKeyRequests } from './key-requests.view.js';
import { RANGES_PATH } from './collector-ranges.view.js';
import type { KeyRequestQuery, RequestWindow } from './key-requests.view.js';

/** Where Settings > Integrations > API keys lives. */
export const API_KEYS_PATH = '/settings/integrations/api-keys';

function requireAdmin(session: ActiveSession): void {
  if (session.user.role !== 'admin') {
    throw new AppError('FORBIDDEN', 'Only admins can add or revoke API keys. Ask an admin of your company.');
  }
}

/**
 * Settings > Integrations > API keys: list, add (the value is shown once,
 * in the response to the form), revoke with a confirmation, and each key's
 * page with its request log (admins). Every call goes to the API key and
 * request log services with the session's company; members only list.
 */
export function registerApiKeyPages(web: FastifyInstance, ctx: WebContext): void {
  web.get('/settings', async (_request, reply) => reply.redirect(API_KEYS_PATH, 302));
  web.get('/settings/integrations', async (_request, reply) => reply.redirect(API_KEYS_PATH, 302));
  web.get(API_KEYS_PATH, async (request, reply) => sendList(ctx, request, reply, 200));
  web.post(API_KEYS_PATH, async (request, reply) => createKey(ctx, request, reply));

  web.get(`${API_KEYS_PATH}/:id/revoke`, async (request, reply) => {
    const session = sessionOf(request);
    requireAdmin(session);
    const key = await findKey(ctx, request);
    if (key.revokedAt !== null) return reply.redirect(API_KEYS_PATH, 302);
    const held = { count: await ctx.services.collectorRanges.countHeldBy(key.id), href: RANGES_PATH };
    return sendPage(ctx, reply, 200, { title: 'Revoke API key', session, section: 'settings', body: settingsShell(renderRevokeConfirmation(key, session, held), session) });
  });

  web.get(`${API_KEYS_PATH}/:id`, async (request, reply) => {
    const session = sessionOf(request);
    requireAdminTo(session, 'Only admins can read the request log of an API key. Ask an admin of your company.');
    const key = await findKey(ctx, request);
    const query = keyRequestQuery(request.query as Record<string, unknown>);
    const { requestLog } = ctx.services;
    // a window longer than the log is kept reads what is kept
    const sinceMs = Math.min(REQUEST_WINDOWS[query.since], requestLog.settings.retentionDays * 86_400_000);
    const terms = { sinceMs, page: query.page, ...(query.status === '' ? {} : { status: query.status }), ...(query.operation === '' ? {} : { operationName: query.operation }) };
    const log = await requestLog.requests(key.id, terms, callerOf(ctx, request).companyId);
    const body = settingsShell(renderKeyRequests(log, query, new Date()), session);
    return sendPage(ctx, reply, 200, { title: `${key.label} · API keys`, session, section: 'settings', charts: true, body });
  });

  web.post(`${API_KEYS_PATH}/:id/revoke`, async (request, reply) => {
    requireAdmin(sessionOf(request));
    const key = await findKey(ctx, request);
    const caller = callerOf(ctx, request);
    await ctx.services.apiKeys.revoke(key.id, caller.companyId, caller.actor);
    return reply.redirect(`${API_KEYS_PATH}?revoked=${encodeURIComponent(key.id)}`, 303);
  });
}

/** The list page; `form` refills the add form after a refused label. */
async function sendList(
  ctx: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  form: KeyForm = { label: '', scope: 'read', expires: '', allow: '' },
): Promise<FastifyReply> {
  const session = sessionOf(request);
  const keys = await ctx.services.apiKeys.list(callerOf(ctx, request).companySlug);
  const revokedId = (request.query as Record<string, string | undefined>).revoked;
  const revoked = revokedId === undefined ? undefined : keys.find((k) => k.id === revokedId && k.revokedAt !== null);
  // the ranges it held go to no other collector by themselves: say so once it is revoked
  const revokedRanges = revoked === undefined ? undefined : { count: await ctx.services.collectorRanges.countHeldBy(revoked.id), href: RANGES_PATH };
  const body = settingsShell(renderKeyList({ session, keys, form, revoked, ...(revokedRanges === undefined ? {} : { revokedRanges }) }), session);
  return sendPage(ctx, reply, status, { title: 'API keys', session, section: 'settings', body });
}

/**
 * Adds a key and shows its value in this response only: not stored, not
 * redirected through a URL, not cached, and the address bar is reset so
 * that a reload lists the keys instead of showing it again.
 */
async function createKey(ctx: WebContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const session = sessionOf(request);
  requireAdmin(session);
  const label = formField(request.body, 'label');
  // read is the default: a key gets write access only when it is asked for
  const scope = formField(request.body, 'scope') || 'read';
  const expires = formField(request.body, 'expires').trim();
  const allow = formField(request.body, 'allow');
  const typed = { label, scope, expires, allow };
  let created: ApiKeyInfo & { key: string };
  try {
    const caller = callerOf(ctx, request);
    const terms = { scope, allow: allow.split(/[\s,]+/).filter((entry) => entry !== ''), ...(expires === '' ? {} : { expires }) };
    created = await ctx.services.apiKeys.create({ companySlug: caller.companySlug, label, ...terms }, caller.actor);
  } catch (error) {
    if (!isAppError(error, 'BAD_USER_INPUT')) throw error;
    const field = error.details.field;
    if (field === 'scope') return sendList(ctx, request, reply, 400, { ...typed, scope: 'read', error: { field: 'label', message: error.message } });
    if (field === 'expires' || field === 'allow') return sendList(ctx, request, reply, 400, { ...typed, error: { field, message: error.message } });
    const message = `Enter a label of 1 to ${TEXT_MAX.apiKeyLabel} characters that says what the key is for, e.g. "billing-sync".`;
    return sendList(ctx, request, reply, 400, { ...typed, error: { field: 'label', message } });
  }
  return sendPage(ctx, reply, 200, {
    title: 'API key created',
    session,
    section: 'settings',
    replaceUrl: API_KEYS_PATH,
    body: settingsShell(renderCreatedKey(created), session),
  });
}

/** A key page's query string; anything it does not know reads as the default. */
function keyRequestQuery(raw: Record<string, unknown>): KeyRequestQuery {
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string).trim() : '');
  const since = text('since');
  const status = text('status');
  const page = Number(text('page'));
  return {
    since: since in REQUEST_WINDOWS ? (since as RequestWindow) : '24h',
    status: status === '2xx' || status === '4xx' || status === '5xx' ? status : '',
    operation: text('operation').slice(0, 200),
    page: Number.isSafeInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
  };
}

/** The key named in the path, within the session's company; NOT_FOUND for another company's key, as for none. */
async function findKey(ctx: WebContext, request: FastifyRequest): Promise<ApiKeyInfo> {
  const { id } = request.params as { id: string };
  // PostgreSQL refuses a malformed uuid outright, so it must not reach the query
  if (!isUuid(id)) throw API_KEY_NOT_FOUND.create();
  try {
    return await ctx.services.apiKeys.get(id, callerOf(ctx, request).companyId);
  } catch (error) {
    if (isAppError(error, 'NOT_FOUND')) throw API_KEY_NOT_FOUND.create();
    throw error;
  }
}
