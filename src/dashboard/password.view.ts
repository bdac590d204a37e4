import { MIN_PASSWORD_LENGTH } from '../features/user/user.password.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { PASSWORD_PATH } from './api-keys.view.js';
import { inputField } from './forms.js';
import type { FormState } from './forms.js';
import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { csrfInput, notice, pageHeader } from './layout.js';

/** The form fields of a password change, by the names the user service gives in its errors. */
export const PASSWORD_FIELDS: Record<string, string> = { current: 'current', next: 'next', confirm: 'confirm' };

/** Settings > Account > Password: the current password and the new one twice. Typed passwords are never shown again. */
export function renderPasswordPage(session: ActiveSession, form: FormState, changed: boolean): SafeHtml {
  return html`${pageHeader({
    title: 'Password',
    crumbs: [{ label: 'Settings', href: PASSWORD_PATH }, { label: 'Account', href: PASSWORD_PATH }, { label: 'Password' }],
    description: html`The password you sign in with as ${session.user.email}. Changing it signs you out everywhere else.`,
  })}
${changed ? notice('success', 'Password changed. Every other session of this account was signed out.') : ''}
<form method="post" action="${PASSWORD_PATH}" class="card form form-page" novalidate>
  ${csrfInput(session.csrfToken)}
  ${form.message ? notice('error', form.message) : ''}
  ${inputField(form, { name: 'current', label: 'Current password', id: 'password-current', type: 'password', extra: 'autocomplete="current-password" required' })}
  ${inputField(form, { name: 'next', label: 'New password', id: 'password-next', type: 'password', help: `At least ${MIN_PASSWORD_LENGTH} characters.`, extra: 'autocomplete="new-password" required' })}
  ${inputField(form, { name: 'confirm', label: 'New password, again', id: 'password-confirm', type: 'password', extra: 'autocomplete="new-password" required' })}
  <div class="form-actions">
    <button type="submit" class="btn btn-primary">Change password</button>
  </div>
</form>`;
}
