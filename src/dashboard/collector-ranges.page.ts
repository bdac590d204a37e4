import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { EVERY_COLLECTOR, RANGES_PATH, RANGE_FORM_FIELDS, renderRanges } from './collector-ranges.view.js';
import { NEW_TARGET, formValues, snmpInput, withoutSecrets } from './collectors.page.js';
import { formState, numberValue, optionalValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';

const ADMINS_ONLY = 'Only admins can add or delete discovery ranges. Ask an admin of your company.';

/**
 * Settings > Collectors > Discovery ranges: the company's ranges (read
 * through the API's executor, as collectorRangesForCompany answers them),
 * and (admins) add and delete, each one audited call of the discovery range
 * service, the createCollectorRange and deleteCollectorRange mutations',
 * with the session's caller. Credentials go in through password fields and
 * never come back into a page.
 */
export function registerCollectorRangePages(web: FastifyInstance, ctx: WebContext): void {
  const ranges = ctx.services.collectorRanges;
  web.get(RANGES_PATH, async (request, reply) => sendRanges(ctx, request, reply, 200, formState({ ...NEW_TARGET, collectorKeyUUID: EVERY_COLLECTOR })));

  web.post(RANGES_PATH, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const values = formValues(request);
    const number = (name: string) => (optionalValue(values[name]) === null ? null : numberValue(values[name]));
    try {
      const created = await ranges.create(callerOf(ctx, request), {
        range: (values['range'] ?? '').trim(),
        snmp: snmpInput(values),
        port: number('port'),
        ratePerSecond: number('ratePerSecond'),
        intervalSeconds: number('intervalSeconds'),
        collectorKeyUUID: optionalValue(values['collectorKeyUUID']),
      });
      return reply.redirect(`${RANGES_PATH}?done=${encodeURIComponent(`Added range ${created.range}.`)}`, 303);
    } catch (error) {
      return sendRanges(ctx, request, reply, 400, refusedForm(error, withoutSecrets(values), RANGE_FORM_FIELDS, 'collector key'));
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
  const caller = callerOf(ctx, request);
  const list = await ctx.reads.ranges(caller, request.netgraph);
  // the company's active collector keys, to choose the one that sweeps a range
  const keys = await ctx.services.apiKeys.list(caller.companySlug);
  const collectors = keys.filter((k) => k.scope === 'ingest' && k.revokedAt === null).map((k) => ({ id: k.id, label: k.label }));
  const done = (request.query as Record<string, string | undefined>).done;
  const body = renderRanges({ session, ranges: list, collectors, form, ...(done !== undefined ? { done } : {}) });
  return sendPage(ctx, reply, status, { title: 'Discovery ranges', session, section: 'settings', body });
}
