import { isIP } from 'node:net';
import { MAC_ADDRESS_PATTERN, RFC3339_PATTERN } from './rules.js';

// The string formats the features check (import documents, write inputs, the
// audit log's `since`); the GraphQL scalars of the same names apply them too.
// The MAC and RFC 3339 patterns are the kernel's (device reports use them too).

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAC_PATTERN = new RegExp(MAC_ADDRESS_PATTERN);
const DATETIME_PATTERN = new RegExp(RFC3339_PATTERN);

/** True for an RFC 4122 UUID in canonical lowercase form. */
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
/** True for a lowercase colon-separated MAC address. */
export const isMacAddress = (value: string): boolean => MAC_PATTERN.test(value);
/** True for an IPv4 or IPv6 literal. */
export const isIpAddress = (value: string): boolean => isIP(value) !== 0;

/** Parses an RFC 3339 timestamp into canonical UTC with milliseconds, or undefined when invalid. */
export function toCanonicalDateTime(value: string): string | undefined {
  if (!DATETIME_PATTERN.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
