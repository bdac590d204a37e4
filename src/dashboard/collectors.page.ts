import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { isUuid } from '../kernel/formats.js';
import type { TargetSettingsInput } from '../features/collector-target/collector-target.service.js';
import { callerOf, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { COLLECTORS_PATH, SECRET_FIELDS, TARGET_FORM_FIELDS } from './collector-form.view.js';
import { renderCollectors, renderEditTarget } from './collectors.view.js';
import { formState, numberValue, optionalValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';
import type { CollectorTargetItem } from './documents.js';

const ADMINS_ONLY = 'Only admins can add or change collector targets. Ask an admin of your company.';
/** The SNMP settings a new target's form starts with: v3 authPriv, SHA-256, AES-128. */
export const NEW_TARGET = { version: '3', level: 'authPriv', authProtocol: 'sha256', privProtocol: 'aes' };

/**
 * Settings > Collectors: the company's collector targets with their
 * devices' latest polls (read through the API's executor, as the
 * collectorTargetsForCompany and VirtualDevice.source roots answer them),
 * and (admins) add, edit and delete, each one audited call of the collector
 * target service, the createCollectorTarget, updateCollectorTarget and
 * deleteCollectorTarget mutations', with the session's caller. Credentials
 * go in through password fields and never come back into a page.
 */
export function registerCollectorPages(web: FastifyInstance, ctx: WebContext): void {
  const targets = ctx.services.collectorTargets;
  web.get(COLLECTORS_PATH, async (request, reply) => sendList(ctx, request, reply, 200, formState({ ...NEW_TARGET })));

  web.post(COLLECTORS_PATH, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const values = formValues(request);
    try {
      const created = await targets.create(callerOf(ctx, request), { virtualDeviceUUID: values['virtualDeviceUUID'] ?? '', ...settingsInput(values, true) });
      return reply.redirect(`${COLLECTORS_PATH}?done=${encodeURIComponent(`Added target ${created.host}:${created.port}.`)}`, 303);
    } catch (error) {
      return sendList(ctx, request, reply, 400, refusedForm(error, withoutSecrets(values), fieldsFor(error), 'device'));
    }
  });

  web.get(`${COLLECTORS_PATH}/:id/edit`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const target = await findTarget(ctx, request);
    const values = {
      host: target.host,
      port: String(target.port),
      intervalSeconds: String(target.intervalSeconds),
      ...snmpValues(target),
      uplinks: target.uplinks.join(' '),
      uplinkProbes: target.uplinkProbes.join(' '),
    };
    return sendEdit(ctx, request, reply, 200, target, formState(values));
  });

  web.post(`${COLLECTORS_PATH}/:id/edit`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const target = await findTarget(ctx, request);
    const values = formValues(request);
    try {
      const updated = await ctx.services.collectorTargets.update(callerOf(ctx, request), { targetUUID: target.UUID, ...settingsInput(values, snmpChanged(values, target)) });
      return reply.redirect(`${COLLECTORS_PATH}?done=${encodeURIComponent(`Saved target ${updated.host}:${updated.port}.`)}`, 303);
    } catch (error) {
      return sendEdit(ctx, request, reply, 400, target, refusedForm(error, withoutSecrets(values), fieldsFor(error), 'collector target'));
    }
  });

  web.post(`${COLLECTORS_PATH}/:id/delete`, async (request, reply) => {
    requireAdmin(sessionOf(request), ADMINS_ONLY);
    const targetUUID = (request.params as { id: string }).id;
    const deleted = await targets.delete(callerOf(ctx, request), { targetUUID }).catch((error: unknown) => {
      refusedForm(error, {}, {}, 'collector target');
      throw error;
    });
    return reply.redirect(`${COLLECTORS_PATH}?done=${encodeURIComponent(`Deleted target ${deleted.host}:${deleted.port}.`)}`, 303);
  });
}

async function sendList(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, form: FormState): Promise<FastifyReply> {
  const session = sessionOf(request);
  const { networks, targets, newDiscovered } = await ctx.reads.collectors(callerOf(ctx, request), request.netgraph);
  const done = (request.query as Record<string, string | undefined>).done;
  const serverUrl = `${request.protocol}://${request.host}`;
  const body = renderCollectors({ session, networks, targets, newDiscovered, form, serverUrl, now: new Date(), ...(done !== undefined ? { done } : {}) });
  return sendPage(ctx, reply, status, { title: 'Collectors', session, section: 'settings', body });
}

async function sendEdit(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, target: CollectorTargetItem, form: FormState): Promise<FastifyReply> {
  const session = sessionOf(request);
  const { networks } = await ctx.reads.collectors(callerOf(ctx, request), request.netgraph);
  const body = renderEditTarget({ session, networks, target, form, now: new Date() });
  return sendPage(ctx, reply, status, { title: `Target ${target.host}`, session, section: 'settings', body });
}

/** The target named in the path, of the session's company; the same 404 for another company's as for none. */
async function findTarget(ctx: WebContext, request: FastifyRequest): Promise<CollectorTargetItem> {
  const { id } = request.params as { id: string };
  const target = isUuid(id) ? (await ctx.reads.collectors(callerOf(ctx, request), request.netgraph)).targets.find((t) => t.UUID === id) : undefined;
  if (target === undefined) throw new AppError('NOT_FOUND', 'There is no such collector target in your company.');
  return target;
}

/** A stored target's (or discovery range's) SNMP settings as the form shows them (its credentials aside). */
export function snmpValues(target: Pick<CollectorTargetItem, 'snmpVersion' | 'snmpUser' | 'snmpLevel' | 'authProtocol' | 'privProtocol'>): Record<'version' | 'user' | 'level' | 'authProtocol' | 'privProtocol', string> {
  if (target.snmpVersion === '2c') return { ...NEW_TARGET, version: '2c', user: '' };
  return {
    version: '3',
    user: target.snmpUser ?? '',
    level: target.snmpLevel ?? 'authPriv',
    authProtocol: target.authProtocol ?? 'sha256',
    // authNoPriv stores none: the form's default, so an untouched form reads as unchanged
    privProtocol: target.privProtocol ?? NEW_TARGET.privProtocol,
  };
}

/** Whether the edit form asks to replace the stored credentials (replaced whole): something of them was typed or changed. */
export function snmpChanged(values: Record<string, string>, stored: Parameters<typeof snmpValues>[0]): boolean {
  const shown = snmpValues(stored);
  return SECRET_FIELDS.some((f) => (values[f] ?? '') !== '') || Object.keys(shown).some((f) => (values[f] ?? '') !== shown[f as keyof typeof shown]);
}

/** The form's fields as the service's settings; `withSnmp` false leaves the stored credentials as they are. */
function settingsInput(values: Record<string, string>, withSnmp: boolean): TargetSettingsInput {
  const list = (name: string) => (values[name] ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  const number = (name: string) => (optionalValue(values[name]) === null ? null : numberValue(values[name]));
  return { host: (values['host'] ?? '').trim(), port: number('port'), intervalSeconds: number('intervalSeconds'), uplinks: list('uplinks'), uplinkProbes: list('uplinkProbes'), ...(withSnmp ? { snmp: snmpInput(values) } : {}) };
}

/** The credentials the form describes: a v2c community, or a v3 user with its keys (privacy for authPriv only). */
export function snmpInput(values: Record<string, string>): Record<string, unknown> {
  if (values['version'] === '2c') return { version: '2c', community: values['community'] ?? '' };
  const level = values['level'] ?? 'authPriv';
  const privacy = level === 'authPriv' ? { privProtocol: values['privProtocol'], privKey: values['privKey'] ?? '' } : {};
  return { version: values['version'] ?? '', user: (values['user'] ?? '').trim(), level, authProtocol: values['authProtocol'], authKey: values['authKey'] ?? '', ...privacy };
}

/** The posted fields without the CSRF token. */
export function formValues(request: FastifyRequest): Record<string, string> {
  const values = { ...(request.body as Record<string, string>) };
  delete values['_csrf'];
  return values;
}

/** The values to show again after a refusal: never a community or key. */
export function withoutSecrets(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => !(SECRET_FIELDS as readonly string[]).includes(name)));
}

/** Where the refused field shows: an uplink or probe of the list at its list's field. */
function fieldsFor(error: unknown): Record<string, string> {
  const field = (error as { details?: { field?: string } }).details?.field ?? '';
  const list = /^(uplinks|uplinkProbes)\[/.exec(field)?.[1];
  return list === undefined ? TARGET_FORM_FIELDS : { ...TARGET_FORM_FIELDS, [field]: list };
}
