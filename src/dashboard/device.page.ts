import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { renderDevice } from './device.view.js';
import { EVENT_PAGE_SIZE, renderEventLog } from './events.view.js';
import { DETECTION_PAGE_SIZE, renderSecurity } from './security.view.js';
import { listQueryOf } from './search.view.js';
import type { EventQuery } from './reads.js';

/** Page numbers beyond this are refused: the event log keeps far fewer pages. */
const MAX_PAGE = 10_000;
const EVENT_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * A virtual device's page (linked from its network's page) and a network's
 * event log, read through the API's executor for the session's company.
 * Another company's network or device, a device of another network, a
 * missing one and a malformed id all answer the same 404 page.
 */
export function registerDevicePages(web: FastifyInstance, ctx: WebContext): void {
  web.get('/networks/:id/devices/:deviceId', async (request, reply) => {
    const { id, deviceId } = request.params as { id: string; deviceId: string };
    // the MAC table's search is `q=`; `mac=` is what links of earlier versions have
    const macQuery = listQueryOf(request.query as Record<string, string | undefined>, ['q', 'mac'], 'page');
    const detail = macQuery && (await ctx.reads.device(callerOf(ctx, request), id, deviceId, request.netgraph, macQuery.query));
    if (!macQuery || !detail) throw new AppError('NOT_FOUND', 'There is no device at this address in your company.');
    const session = sessionOf(request);
    const body = renderDevice(detail, new Date(), macQuery);
    return sendPage(ctx, reply, macQuery.problem ? 400 : 200, { title: detail.device.label, session, section: 'networks', charts: true, body });
  });

  web.get('/networks/:id/security', async (request, reply) => {
    const { id } = request.params as { id: string };
    const raw = (request.query as Record<string, string | undefined>).page;
    const page = raw === undefined ? 1 : Number(raw);
    const detail = Number.isInteger(page) && page >= 1 && page <= MAX_PAGE
      ? await ctx.reads.security(callerOf(ctx, request), id, DETECTION_PAGE_SIZE, (page - 1) * DETECTION_PAGE_SIZE, request.netgraph)
      : undefined;
    if (!detail) throw new AppError('NOT_FOUND', 'There is no such security page in your company.');
    const session = sessionOf(request);
    return sendPage(ctx, reply, 200, { title: `Security · ${detail.network.label}`, session, section: 'networks', body: renderSecurity(detail, page, new Date()) });
  });

  web.get('/networks/:id/events', async (request, reply) => {
    const { id } = request.params as { id: string };
    const query = eventQuery(request.query as Record<string, string | undefined>);
    const log = query && (await ctx.reads.eventLog(callerOf(ctx, request), id, query, request.netgraph));
    if (!query || !log) throw new AppError('NOT_FOUND', 'There is no such event log page in your company.');
    const session = sessionOf(request);
    return sendPage(ctx, reply, 200, { title: `Event log · ${log.network.label}`, session, section: 'networks', body: renderEventLog(log, query, new Date()) });
  });
}

/** The filters and page of `?type=&device=&page=`; empty values mean no filter; undefined for a malformed one (a 404, as a page that is not there). */
function eventQuery(params: Record<string, string | undefined>): EventQuery | undefined {
  const type = params.type || null;
  const device = params.device || null;
  const page = params.page === undefined ? 1 : Number(params.page);
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE) return undefined;
  if (type !== null && !EVENT_TYPE.test(type)) return undefined;
  return { limit: EVENT_PAGE_SIZE, offset: (page - 1) * EVENT_PAGE_SIZE, type, device };
}
