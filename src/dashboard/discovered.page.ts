import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { isUuid } from '../kernel/formats.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { TARGET_FORM_FIELDS } from './collector-form.view.js';
import { NEW_TARGET, formValues, snmpInput, withoutSecrets } from './collectors.page.js';
import { DISCOVERED_PATH, renderAdopt, renderDiscovered } from './discovered.view.js';
import { formState, numberValue, optionalValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';
import type { DiscoveredDeviceItem } from './documents.js';

const ADMINS_ONLY = 'Only admins can adopt or ignore discovered devices. Ask an admin of your company.';
/** The adoption's field names (its refusals name them) as the form names them. */
const ADOPT_FORM_FIELDS: Readonly<Record<string, string>> = { ...TARGET_FORM_FIELDS, networkUUID: 'networkUUID', label: 'label', deviceType: 'deviceType' };

/**
 * Settings > Collectors > Discovered: the SNMP agents the company's
 * collectors found (read through the API's executor, as
 * discoveredDevicesForCompany answers them), and (admins) adopt and ignore,
 * each one audited call of the discovered device service, the
 * adoptDiscoveredDevice and ignoreDiscoveredDevice mutations', with the
 * session's caller. The credentials of the adoption's target go in through
 * password fields and never come back into a page.
 */
export function registerDiscoveredPages(web: FastifyInstance, ctx: WebContext): void {
  const discovered = ctx.services.discoveredDevices;
  web.get(DISCOVERED_PATH, async (request, reply) => {
    const session = sessionOf(request);
    const { devices } = await ctx.reads.discovered(callerOf(ctx, request), request.netgraph);
    const done = (request.query as Record<string, string | undefined>).done;
    const body = renderDiscovered({ session, devices, now: new Date(), ...(done !== undefined ? { done } : {}) });
    return sendPage(ctx, reply, 200, { title: 'Discovered devices', session, section: 'settings', body });
  });

  web.get(`${DISCOVERED_PATH}/:id/adopt`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const device = await findDevice(ctx, request);
    return sendAdopt(ctx, request, reply, 200, device, formState({ ...NEW_TARGET, deviceType: 'SWITCH', label: device.sysName ?? '' }));
  });

  web.post(`${DISCOVERED_PATH}/:id/adopt`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const device = await findDevice(ctx, request);
    const values = formValues(request);
    const number = (name: string) => (optionalValue(values[name]) === null ? null : numberValue(values[name]));
    try {
      const adopted = await discovered.adopt(callerOf(ctx, request), {
        discoveredDeviceUUID: device.UUID,
        networkUUID: values['networkUUID'] ?? '',
        label: optionalValue(values['label'])?.trim() ?? null,
        deviceType: values['deviceType'] ?? null,
        snmp: snmpInput(values),
        port: number('port'),
        intervalSeconds: number('intervalSeconds'),
      });
      const done = `Adopted ${adopted.discoveredDevice.address} as ${adopted.virtualDevice.label}; your collectors poll it from their next fetch.`;
      return reply.redirect(`${DISCOVERED_PATH}?done=${encodeURIComponent(done)}`, 303);
    } catch (error) {
      return sendAdopt(ctx, request, reply, 400, device, refusedForm(error, withoutSecrets(values), ADOPT_FORM_FIELDS, 'discovered device'));
    }
  });

  web.post(`${DISCOVERED_PATH}/:id/ignore`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const discoveredDeviceUUID = (request.params as { id: string }).id;
    const ignored = await discovered.ignore(callerOf(ctx, request), { discoveredDeviceUUID }).catch((error: unknown) => {
      // another company's device, or none: the 404; an adopted one: the refusal's message on the error page
      refusedForm(error, {}, {}, 'discovered device');
      throw error;
    });
    return reply.redirect(`${DISCOVERED_PATH}?done=${encodeURIComponent(`Ignored ${ignored.sysName ?? ignored.address} (${ignored.address}).`)}`, 303);
  });
}

async function sendAdopt(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, device: DiscoveredDeviceItem, form: FormState): Promise<FastifyReply> {
  const session = sessionOf(request);
  const { networks } = await ctx.reads.discovered(callerOf(ctx, request), request.netgraph);
  const body = renderAdopt({ session, device, networks, form });
  return sendPage(ctx, reply, status, { title: `Adopt ${device.sysName ?? device.address}`, session, section: 'settings', body });
}

/** The discovered device named in the path, of the session's company and not adopted yet; the same 404 for another company's as for none. */
async function findDevice(ctx: WebContext, request: FastifyRequest): Promise<DiscoveredDeviceItem> {
  const { id } = request.params as { id: string };
  const device = isUuid(id) ? (await ctx.reads.discovered(callerOf(ctx, request), request.netgraph)).devices.find((d) => d.UUID === id) : undefined;
  if (device === undefined) throw new AppError('NOT_FOUND', 'There is no such discovered device in your company.');
  if (device.state === 'ADOPTED') throw new AppError('CONFLICT', `${device.address} is adopted already.`);
  return device;
}
