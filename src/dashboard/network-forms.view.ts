import { TEXT_MAX } from '../kernel/rules.js';
import { SLUG_MAX_LENGTH, SLUG_RULE } from '../features/company/company.rules.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { checkboxField, inputField } from './forms.js';
import type { FormState } from './forms.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { csrfInput, notice, pageHeader } from './layout.js';

/** The form fields of a network, by the names the network service gives in its errors. */
export const NETWORK_FIELDS: Record<string, string> = {
  label: 'label',
  slug: 'slug',
  isActive: 'active',
  mailingAddress: 'city',
  'mailingAddress.line1': 'line1',
  'mailingAddress.line2': 'line2',
  'mailingAddress.city': 'city',
  'mailingAddress.subdivisionCode': 'region',
  'mailingAddress.postalCode': 'postal',
};

function networkFields(form: FormState): SafeHtml {
  return html`${form.message ? notice('error', form.message) : ''}
  ${inputField(form, { name: 'label', label: 'Label', id: 'network-label', help: 'The name people know the site by, e.g. "Branch Bern".', extra: `maxlength="${TEXT_MAX.networkLabel}" required` })}
  ${inputField(form, { name: 'slug', label: 'Slug', id: 'network-slug', help: `Unique in your company; scripts find the network by it. Use ${SLUG_RULE}.`, extra: `maxlength="${SLUG_MAX_LENGTH}" required autocapitalize="none" spellcheck="false"` })}
  ${inputField(form, { name: 'line1', label: 'Street address', id: 'network-line1', extra: `maxlength="${TEXT_MAX.addressLine}"` })}
  ${inputField(form, { name: 'line2', label: 'Address line 2', id: 'network-line2', help: 'Suite, floor or building; optional.', extra: `maxlength="${TEXT_MAX.addressLine}"` })}
  <div class="form-row">
    ${inputField(form, { name: 'city', label: 'City', id: 'network-city', extra: `maxlength="${TEXT_MAX.city}"` })}
    ${inputField(form, { name: 'region', label: 'Region', id: 'network-region', help: 'e.g. BE or CA-ON; optional.', extra: `maxlength="${TEXT_MAX.subdivisionCode}"` })}
    ${inputField(form, { name: 'postal', label: 'Postal code', id: 'network-postal', extra: `maxlength="${TEXT_MAX.postalCode}"` })}
  </div>
  ${checkboxField(form, { name: 'active', label: 'Active' })}`;
}

/** The "Add network" page. */
export function renderAddNetwork(session: ActiveSession, form: FormState): SafeHtml {
  return html`${pageHeader({ title: 'Add network', crumbs: [{ label: 'Networks', href: '/networks' }, { label: 'Add network' }] })}
<form method="post" action="/networks" class="card form form-page" novalidate>
  ${csrfInput(session.csrfToken)}
  ${networkFields(form)}
  <div class="form-actions">
    <a class="btn btn-secondary" href="/networks">Cancel</a>
    <button type="submit" class="btn btn-primary">Add network</button>
  </div>
</form>`;
}

/** The edit page of a network. */
export function renderEditNetwork(session: ActiveSession, network: { UUID: string; label: string }, form: FormState): SafeHtml {
  const page = `/networks/${network.UUID}`;
  return html`${pageHeader({ title: `Edit ${network.label}`, crumbs: [{ label: 'Networks', href: '/networks' }, { label: network.label, href: page }, { label: 'Edit' }] })}
<form method="post" action="${page}/edit" class="card form form-page" novalidate>
  ${csrfInput(session.csrfToken)}
  ${networkFields(form)}
  <div class="form-actions">
    <a class="btn btn-secondary" href="${page}">Cancel</a>
    <button type="submit" class="btn btn-primary">Save network</button>
  </div>
</form>
<section class="card form-page danger-zone" aria-labelledby="delete-network">
  <h2 id="delete-network">Delete this network</h2>
  <p class="field-help">Deletes the network with its virtual devices, VLANs, SSIDs and clients. Its hardware goes back to the company's spare inventory. This cannot be undone.</p>
  <form method="post" action="${page}/delete" data-confirm="Delete the network “${network.label}” with its devices, VLANs, SSIDs and clients? This cannot be undone.">${csrfInput(session.csrfToken)}<button type="submit" class="btn btn-danger">Delete network</button></form>
</section>`;
}
