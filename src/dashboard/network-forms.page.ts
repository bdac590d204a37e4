import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NETWORK_NOT_FOUND } from '../kernel/errors.js';
import type { MailingAddressFields } from '../features/network/network.service.js';
import { callerOf, formField, sendPage, sessionOf } from './context.js';
import type { WebContext } from './context.js';
import { formState, optionalValue, refusedForm, requireAdmin } from './forms.js';
import type { FormState } from './forms.js';
import { NETWORK_FIELDS, renderAddNetwork, renderEditNetwork } from './network-forms.view.js';
import type { NetworkDetail } from './documents.js';

/** The message of a member's forged POST (members see no forms). */
export const ADMINS_ONLY = 'Only admins can change networks, VLANs and SSIDs. Ask an admin of your company.';

const FORM_NAMES = ['label', 'slug', 'active', 'line1', 'line2', 'city', 'region', 'postal'] as const;

/**
 * "Add network" and a network's edit page (with its delete), for admins.
 * Each POST calls one network service method with the session's caller; a
 * refusal re-renders the form with the input kept and the message next to
 * its field.
 */
export function registerNetworkFormPages(web: FastifyInstance, ctx: WebContext): void {
  web.get('/networks/new', async (request, reply) => {
    const session = sessionOf(request);
    requireAdmin(session, ADMINS_ONLY);
    return sendPage(ctx, reply, 200, { title: 'Add network', session, section: 'networks', body: renderAddNetwork(session, formState({ active: 'on' })) });
  });

  web.post('/networks', async (request, reply) => {
    const session = sessionOf(request);
    requireAdmin(session, ADMINS_ONLY);
    const values = readForm(request.body);
    try {
      const created = await ctx.services.networks.create(callerOf(ctx, request), { ...networkInput(values), isActive: values.active === 'on' });
      return reply.redirect(`/networks/${created.UUID}`, 303);
    } catch (error) {
      const form = refusedForm(error, values, NETWORK_FIELDS, 'network');
      return sendPage(ctx, reply, 400, { title: 'Add network', session, section: 'networks', body: renderAddNetwork(session, form) });
    }
  });

  web.get('/networks/:id/edit', async (request, reply) => {
    const { network } = await loadNetwork(ctx, request);
    const values = {
      label: network.label,
      slug: network.slug,
      active: network.isActive ? 'on' : '',
      line1: network.mailingAddress?.line1 ?? '',
      line2: network.mailingAddress?.line2 ?? '',
      city: network.mailingAddress?.city ?? '',
      region: network.mailingAddress?.subdivisionCode ?? '',
      postal: network.mailingAddress?.postalCode ?? '',
    };
    return sendEdit(ctx, request, reply, 200, network, formState(values));
  });

  web.post('/networks/:id/delete', async (request, reply) => {
    const { network } = await loadNetwork(ctx, request);
    await ctx.services.networks.delete(callerOf(ctx, request), { networkUUID: network.UUID });
    return reply.redirect('/networks', 303);
  });

  web.post('/networks/:id/edit', async (request, reply) => {
    const { network } = await loadNetwork(ctx, request);
    const values = readForm(request.body);
    try {
      await ctx.services.networks.update(callerOf(ctx, request), { networkUUID: network.UUID, ...networkInput(values), isActive: values.active === 'on' });
      return reply.redirect(`/networks/${network.UUID}`, 303);
    } catch (error) {
      return sendEdit(ctx, request, reply, 400, network, refusedForm(error, values, NETWORK_FIELDS, 'network'));
    }
  });
}

function sendEdit(ctx: WebContext, request: FastifyRequest, reply: FastifyReply, status: number, network: NetworkDetail['network'], form: FormState): FastifyReply {
  const session = sessionOf(request);
  return sendPage(ctx, reply, status, { title: `Edit ${network.label}`, session, section: 'networks', body: renderEditNetwork(session, network, form) });
}

/**
 * The network named in the path, for an admin; the same 404 for another
 * company's network as for none. Admin is checked first, so a member learns
 * nothing from the answer.
 */
export async function loadNetwork(ctx: WebContext, request: FastifyRequest): Promise<NetworkDetail> {
  requireAdmin(sessionOf(request), ADMINS_ONLY);
  const { id } = request.params as { id: string };
  const detail = await ctx.reads.network(callerOf(ctx, request), id, request.netgraph);
  if (!detail) throw NETWORK_NOT_FOUND.create();
  return detail;
}

function readForm(body: unknown): Record<string, string> {
  return Object.fromEntries(FORM_NAMES.map((name) => [name, formField(body, name)]));
}

function networkInput(values: Record<string, string>): { label: string; slug: string; mailingAddress: MailingAddressFields | null } {
  const address = {
    line1: optionalValue(values.line1),
    line2: optionalValue(values.line2),
    city: optionalValue(values.city),
    subdivisionCode: optionalValue(values.region),
    postalCode: optionalValue(values.postal),
  };
  return {
    label: values.label ?? '',
    slug: (values.slug ?? '').trim(),
    mailingAddress: Object.values(address).every((part) => part === null) ? null : address,
  };
}
