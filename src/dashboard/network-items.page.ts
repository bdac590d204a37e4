import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import type { Caller } from '../kernel/caller.js';
import { callerOf, formField } from './context.js';
import type { WebContext } from './context.js';
import { numberValue, refusedForm } from './forms.js';
import { loadNetwork } from './network-forms.page.js';
import { SSID_FIELDS, VLAN_FIELDS } from './network-items.view.js';
import { sendNetworkPage } from './networks.page.js';
import type { NetworkDetail } from './documents.js';

/** One form of the network page: where it posts, what it reads, and the one write it makes. */
interface ItemForm {
  /** `vlan-new`, `ssid-new`, or the edited row's UUID: which form shows a refusal. */
  readonly target: (request: FastifyRequest) => string;
  readonly names: readonly string[];
  readonly fields: Record<string, string>;
  readonly what: string;
  readonly anchor: string;
  readonly write: (ctx: WebContext, caller: Caller, values: Record<string, string>, request: FastifyRequest) => Promise<unknown>;
}

const itemId = (request: FastifyRequest) => (request.params as { itemId: string }).itemId;
const enabled = (values: Record<string, string>) => values.enabled === 'on';

const VLAN_FORM = { names: ['name', 'vlanID', 'enabled', 'default', 'description'], fields: VLAN_FIELDS, what: 'VLAN', anchor: 'vlans' } as const;
const SSID_FORM = { names: ['ssid', 'enabled', 'guest', 'hidden', 'encryption', 'vlan'], fields: SSID_FIELDS, what: 'SSID', anchor: 'ssids' } as const;

/** An optional text input: blank is none. */
const optional = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value);

/** A VLAN form's fields as the VLAN service takes them. */
const vlanFields = (v: Record<string, string>) => ({
  name: v.name ?? '',
  vlanID: numberValue(v.vlanID),
  isEnabled: enabled(v),
  isDefault: v.default === 'on',
  description: optional(v.description),
});

/** An SSID form's fields as the SSID service takes them; a blank VLAN ID is none. */
const ssidFields = (v: Record<string, string>) => ({
  ssid: v.ssid ?? '',
  isEnabled: enabled(v),
  isGuest: v.guest === 'on',
  isHidden: v.hidden === 'on',
  encryptionProtocol: optional(v.encryption),
  vlanID: optional(v.vlan) === null ? null : numberValue(v.vlan),
});

const FORMS: Record<string, ItemForm> = {
  '/networks/:id/vlans': {
    ...VLAN_FORM,
    target: () => 'vlan-new',
    write: (ctx, caller, v, r) =>
      ctx.services.vlans.create(caller, { networkUUID: networkId(r), ...vlanFields(v) }),
  },
  '/networks/:id/vlans/:itemId': {
    ...VLAN_FORM,
    target: itemId,
    write: (ctx, caller, v, r) =>
      ctx.services.vlans.update(caller, { vlanUUID: itemId(r), ...vlanFields(v) }),
  },
  '/networks/:id/vlans/:itemId/delete': { ...VLAN_FORM, target: itemId, write: (ctx, caller, _v, r) => ctx.services.vlans.delete(caller, { vlanUUID: itemId(r) }) },
  '/networks/:id/ssids': {
    ...SSID_FORM,
    target: () => 'ssid-new',
    write: (ctx, caller, v, r) => ctx.services.ssids.create(caller, { networkUUID: networkId(r), ...ssidFields(v) }),
  },
  '/networks/:id/ssids/:itemId': {
    ...SSID_FORM,
    target: itemId,
    write: (ctx, caller, v, r) => ctx.services.ssids.update(caller, { ssidUUID: itemId(r), ...ssidFields(v) }),
  },
  // the row's Enable/Disable button changes only the flag, whatever the name is by now
  '/networks/:id/ssids/:itemId/enabled': {
    ...SSID_FORM,
    target: itemId,
    write: (ctx, caller, v, r) => ctx.services.ssids.update(caller, { ssidUUID: itemId(r), isEnabled: enabled(v) }),
  },
  '/networks/:id/ssids/:itemId/delete': { ...SSID_FORM, target: itemId, write: (ctx, caller, _v, r) => ctx.services.ssids.delete(caller, { ssidUUID: itemId(r) }) },
};

function networkId(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}

/**
 * The VLAN and SSID forms of a network page, for admins: add, edit,
 * enable/disable (SSIDs), delete. Each POST makes one service call with the
 * session's caller, then goes back to the network page; a refusal re-renders
 * the page with the form open, the input kept and the message by its field.
 */
export function registerNetworkItemPages(web: FastifyInstance, ctx: WebContext): void {
  for (const [path, form] of Object.entries(FORMS)) {
    web.post(path, async (request, reply) => submit(ctx, form, request, reply));
  }
}

async function submit(ctx: WebContext, form: ItemForm, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const detail = await loadNetwork(ctx, request);
  const target = form.target(request);
  // a row of another network (even of this company) is not this page's to change
  if (!target.endsWith('-new') && !hasItem(detail, target)) throw new AppError('NOT_FOUND', `There is no such ${form.what} on this network.`);
  const values = Object.fromEntries(form.names.map((name) => [name, formField(request.body, name)]));
  try {
    await form.write(ctx, callerOf(ctx, request), values, request);
    return reply.redirect(`/networks/${detail.network.UUID}#${form.anchor}`, 303);
  } catch (error) {
    const state = { target, form: refusedForm(error, values, form.fields, form.what) };
    return sendNetworkPage(ctx, request, reply, 400, detail, state);
  }
}

function hasItem(detail: NetworkDetail, uuid: string): boolean {
  return detail.network.vlans.some((v) => v.UUID === uuid) || detail.network.ssids.some((s) => s.UUID === uuid);
}
