import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { isUuid } from '../kernel/formats.js';
import type { RangeSettingsInput } from '../features/collector-range/collector-range.service.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { EVERY_COLLECTOR, RANGES_PATH, RANGE_FORM_FIELDS, renderEditRange, renderRanges } from './collector-ranges.view.js';
import { NEW_TARGET, formValues, snmpChanged, snmpInput, snmpValues, withoutSecrets } from './collectors.page.js';
import { formState, numberValue, optionalValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';
import type { CollectorRangeItem } from './documents.js';

const ADMINS_ONLY = 'Only admins can add, change or delete discovery ranges. Ask an admin of your company.';

/**
 * Settings > Collectors > Discovery ranges: the company's ranges (read
 * through the API's executor, as collectorRangesForCompany answers them),
 * and (admins) add, edit and delete, each one audited call of the discovery
 * range service, the createCollectorRange, updateCollectorRange and
 * deleteCollectorRange mutations',
 * with the session's caller. Credentials go in through password fields and
 * never come back into a page.
 */
export function registerCollectorRangePages(web: FastifyInstance, ctx: WebContext): void {
  const ranges = ctx.services.collectorRanges;
  web.get(RANGES_PATH, async (request, reply) => sendRanges(ctx, request, reply, 200, formState({ ...NEW_TARGET, collectorKeyUUID: EVERY_COLLECTOR })));

  web.post(RANGES_PATH, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const values = formValues(request);
    try {
      const created = await ranges.create(callerOf(ctx, request), { ...settingsInput(values, true), collectorKeyUUID: optionalValue(values['collectorKeyUUID']) });
      return reply.redirect(`${RANGES_PATH}?done=${encodeURIComponent(`Added range ${created.range}.`)}`, 303);
    } catch (error) {
      return sendRanges(ctx, request, reply, 400, refusedForm(error, withoutSecrets(values), RANGE_FORM_FIELDS, 'collector key'));
    }
  });

  web.get(`${RANGES_PATH}/:id/edit`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const range = await findRange(ctx, request);
    return sendEdit(ctx, request, reply, 200, range, formState(storedValues(range)));
  });

  web.post(`${RANGES_PATH}/:id/edit`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const range = await findRange(ctx, request);
    const values = formValues(request);
    // the collector is sent only when another was chosen: a range whose key was revoked keeps it until an admin picks one
    const collector = optionalValue(values['collectorKeyUUID']);
    const keyChange = collector === range.collectorKeyUUID ? {} : { collectorKeyUUID: collector };
    try {
      const updated = await ranges.update(callerOf(ctx, request), { rangeUUID: range.UUID, ...settingsInput(values, snmpChanged(values, range)), ...keyChange });
      return reply.redirect(`${RANGES_PATH}?done=${encodeURIComponent(`Saved range ${updated.range}.`)}`, 303);
    } catch (error) {
      return sendEdit(ctx, request, reply, 400, range, refusedForm(error, withoutSecrets(values), RANGE_FORM_FIELDS, 'discovery range'));
    }
  });

  web.post(`${RANGES_PATH}/:id/delete`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const rangeUUID = (request.params as { id: string }).id;
    const deleted = await ranges.delete(callerOf(ctx, request), { rangeUUID }).catch((error: unknown) => {
      refusedForm(error, {}, {}, 'discovery range');
      throw error;
    });
    return reply.redirect(`${RANGES_PATH}?done=${encodeURIComponent(`Deleted range ${deleted.range}.`)}`, 303);
  });
}

async function sendRanges(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, form: FormState): Promise<FastifyReply> {
  const session = sessionOf(request);
  const list = await ctx.reads.ranges(callerOf(ctx, request), request.netgraph);
  const done = (request.query as Record<string, string | undefined>).done;
  const body = renderRanges({ session, ranges: list, collectors: await collectorsOf(ctx, request), form, ...(done !== undefined ? { done } : {}) });
  return sendPage(ctx, reply, status, { title: 'Discovery ranges', session, section: 'settings', body });
}

async function sendEdit(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, range: CollectorRangeItem, form: FormState): Promise<FastifyReply> {
  const session = sessionOf(request);
  const body = renderEditRange({ session, range, collectors: await collectorsOf(ctx, request), form });
  return sendPage(ctx, reply, status, { title: `Range ${range.range}`, session, section: 'settings', body });
}

/** The company's active collector keys (neither revoked nor expired), to choose the one that sweeps a range. */
async function collectorsOf(ctx: WebContext, request: FastifyRequest): Promise<{ id: string; label: string }[]> {
  const keys = await ctx.services.apiKeys.list(callerOf(ctx, request).companySlug);
  const now = Date.now();
  const active = keys.filter((k) => k.scope === 'ingest' && k.revokedAt === null && (k.expiresAt === null || Date.parse(k.expiresAt) > now));
  return active.map((k) => ({ id: k.id, label: k.label }));
}

/** The range named in the path, of the session's company; the same 404 for another company's as for none. */
async function findRange(ctx: WebContext, request: FastifyRequest): Promise<CollectorRangeItem> {
  const { id } = request.params as { id: string };
  const range = isUuid(id) ? (await ctx.reads.ranges(callerOf(ctx, request), request.netgraph)).find((r) => r.UUID === id) : undefined;
  if (range === undefined) throw new AppError('NOT_FOUND', 'There is no such discovery range in your company.');
  return range;
}

/** A stored range as its edit form starts: its settings, its credentials' kind (never the secrets), its collector. */
function storedValues(range: CollectorRangeItem): Record<string, string> {
  return {
    range: range.range,
    port: String(range.port),
    ratePerSecond: String(range.ratePerSecond),
    intervalSeconds: String(range.intervalSeconds),
    ...snmpValues(range),
    collectorKeyUUID: range.collectorKeyUUID ?? EVERY_COLLECTOR,
  };
}

/** The form's sweep settings as the service's; `withSnmp` false leaves the stored credentials as they are. */
function settingsInput(values: Record<string, string>, withSnmp: boolean): RangeSettingsInput {
  const number = (name: string) => (optionalValue(values[name]) === null ? null : numberValue(values[name]));
  return {
    range: (values['range'] ?? '').trim(),
    port: number('port'),
    ratePerSecond: number('ratePerSecond'),
    intervalSeconds: number('intervalSeconds'),
    ...(withSnmp ? { snmp: snmpInput(values) } : {}),
  };
}
