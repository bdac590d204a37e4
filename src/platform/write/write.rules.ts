import type { Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import { isUuid } from '../../kernel/formats.js';

/**
 * Checks of write inputs shared by every feature. Each failure is
 * BAD_USER_INPUT naming the offending field relative to the input (e.g.
 * `slug`, `vlans[1].vlanID`); the GraphQL adapter prefixes `input.`.
 */

/** A string of 1 to `max` characters that is not blank, returned as given. */
export function requireText(value: unknown, field: string, max: number): string {
  if (typeof value === 'string' && value.trim().length > 0 && value.length <= max) return value;
  throw new AppError('BAD_USER_INPUT', `${field} must be 1 to ${max} characters, not blank.`, { field });
}

/** Like requireText, but null (or absent) is allowed and answered as null. */
export function optionalText(value: unknown, field: string, max: number): string | null {
  return value === null || value === undefined ? null : requireText(value, field, max);
}

/** true or false. */
export function requireBoolean(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new AppError('BAD_USER_INPUT', `${field} must be true or false.`, { field });
}

/** One of the allowed values. */
export function requireOneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new AppError('BAD_USER_INPUT', `${field} must be one of ${allowed.join(', ')}.`, { field });
}

/** A UUID in canonical lowercase form. */
export function requireUuid(value: unknown, field: string): string {
  if (typeof value === 'string' && isUuid(value)) return value;
  throw new AppError('BAD_USER_INPUT', `${field} must be a UUID in canonical lowercase form.`, { field });
}

/** BAD_USER_INPUT unless the update input names at least one field to change. */
export function requireSomeChange(input: object, fields: readonly string[]): void {
  if (fields.some((field) => (input as Record<string, unknown>)[field] !== undefined)) return;
  // the empty path names the whole input
  throw new AppError('BAD_USER_INPUT', `Name at least one field to change: ${fields.join(', ')}.`, { field: '' });
}

/** True when an update input gives this field (null included): absent fields stay as they are. */
export function isGiven(input: object, field: string): boolean {
  return (input as Record<string, unknown>)[field] !== undefined;
}

/**
 * The answer for an id that does not exist or belongs to another company:
 * the same in both cases, so ids of other companies cannot be probed.
 */
export function notFound(field: string): AppError {
  return new AppError('UNAUTHORIZED', `Not found, or not accessible with this API key: ${field}.`, { field });
}

/**
 * Awaits one statement (or a whole transaction) and turns a unique-constraint
 * violation into the given CONFLICT; other failures pass unchanged. The rules
 * check uniqueness first; this covers a concurrent write that got there in
 * between (PostgreSQL).
 */
export async function unique<T>(store: Pick<Store, 'dialect'>, statement: Promise<T>, conflict: () => AppError): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    if (store.dialect.isUniqueViolation(error)) throw conflict();
    throw error;
  }
}

/**
 * A GraphQL mutation's input as the service's own input type. graphql-js has
 * coerced it to the schema's input type, which the service types mirror;
 * every service checks each value again anyway, as a dashboard calls them directly.
 */
export const asInput = <T>(input: Readonly<Record<string, unknown>>): T => input as unknown as T;
