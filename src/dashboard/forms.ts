import { AppError, isAppError } from '../kernel/errors.js';
import type { ActiveSession } from '../features/user/user.service.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';

/**
 * What a dashboard form shows after a refused submit: the values the user
 * typed, the service's message next to the field it names, and a message
 * for the form as a whole when the field is not one of the form's.
 */
export interface FormState {
  readonly values: Readonly<Record<string, string>>;
  readonly errors: Readonly<Record<string, string>>;
  readonly message?: string;
}

/** An empty form, or one filled with stored values. */
export function formState(values: Record<string, string> = {}): FormState {
  return { values, errors: {} };
}

/** FORBIDDEN unless the session's user is an admin: members see no forms, and a forged POST changes nothing. */
export function requireAdmin(session: ActiveSession, message: string): void {
  if (session.user.role !== 'admin') throw new AppError('FORBIDDEN', message);
}

/**
 * Turns a write service's refusal into the form's state: BAD_USER_INPUT and
 * CONFLICT are shown next to the field they name (`fields` maps the
 * service's field names to the form's). An id that is missing or another
 * company's (UNAUTHORIZED on the API) is the dashboard's 404; anything else
 * is rethrown to the error page.
 */
export function refusedForm(error: unknown, values: Record<string, string>, fields: Record<string, string>, what: string): FormState {
  if (isAppError(error, 'UNAUTHORIZED')) throw new AppError('NOT_FOUND', `There is no such ${what} in your company.`);
  if (!isAppError(error, 'BAD_USER_INPUT', 'CONFLICT')) throw error;
  const field = fields[error.details.field ?? ''];
  if (field === undefined) return { values, errors: {}, message: error.message };
  return { values, errors: { [field]: error.message } };
}

/** A text, number or password input with its label, and the field's error (or help) below it. */
export function inputField(
  form: FormState,
  field: { name: string; label: string; id: string; type?: 'text' | 'number' | 'password'; help?: string; extra?: string },
): SafeHtml {
  const error = form.errors[field.name];
  const describedBy = `${field.id}-help`;
  const note = error
    ? html`<span class="field-error" id="${describedBy}">${error}</span>`
    : field.help
      ? html`<span class="field-help" id="${describedBy}">${field.help}</span>`
      : '';
  return html`<label class="field">
  <span class="field-label">${field.label}</span>
  <input type="${field.type ?? 'text'}" name="${field.name}" id="${field.id}" value="${form.values[field.name] ?? ''}"${raw(field.extra ? ` ${field.extra}` : '')}${error || field.help ? html` aria-describedby="${describedBy}"` : ''}${error ? raw(' aria-invalid="true"') : ''}>
  ${note}
</label>`;
}

/** A checkbox with its label; checked when the form's value is "on". */
export function checkboxField(form: FormState, field: { name: string; label: string }): SafeHtml {
  const error = form.errors[field.name];
  return html`<label class="field-check">
  <input type="checkbox" name="${field.name}"${form.values[field.name] === 'on' ? raw(' checked') : ''}>
  <span>${field.label}</span>
  ${error ? html`<span class="field-error">${error}</span>` : ''}
</label>`;
}

/** A form field as the services take it: '' (blank) is null, anything else kept as typed. */
export function optionalValue(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}

/**
 * A number field as the services take it. A value that is not a whole
 * number becomes NaN, so the service refuses it with its own message.
 */
export function numberValue(value: string | undefined): number {
  return value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
}
