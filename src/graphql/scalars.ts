import { GraphQLScalarType, Kind } from 'graphql';
import type { ValueNode } from 'graphql';
import { isIP } from 'node:net';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAC_PATTERN = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
const DATETIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

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

function createStringScalar(name: string, description: string, expected: string, check: (v: string) => boolean) {
  const parse = (value: unknown): string => {
    // a TypeError (not a GraphQLError) lets graphql-js add which value and where
    if (typeof value !== 'string' || !check(value)) throw new TypeError(`Expected ${expected}.`);
    return value;
  };
  return new GraphQLScalarType<string, string>({
    name,
    description,
    serialize: (value) => parse(value),
    parseValue: parse,
    parseLiteral(node: ValueNode) {
      if (node.kind !== Kind.STRING) throw new TypeError(`Expected ${expected}.`);
      return parse(node.value);
    },
  });
}

export const UUIDScalar = createStringScalar(
  'UUID',
  'RFC 4122 UUID in canonical lowercase form, e.g. `3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f`.',
  'a UUID in canonical lowercase form, e.g. "3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f"',
  isUuid,
);

export const MacAddressScalar = createStringScalar(
  'MacAddress',
  'A hardware address, lowercase and colon-separated, e.g. `0c:8d:db:12:34:56`.',
  'a MAC address, lowercase and colon-separated, e.g. "0c:8d:db:12:34:56"',
  isMacAddress,
);

export const IPScalar = createStringScalar(
  'IP',
  'An IPv4 or IPv6 address literal, e.g. `10.0.10.23` or `2001:db8::1`.',
  'an IPv4 or IPv6 address, e.g. "10.0.10.23"',
  isIpAddress,
);

export const DateTimeScalar = createStringScalar(
  'DateTime',
  'An RFC 3339 timestamp in UTC with milliseconds, e.g. `2026-11-21T17:03:00.000Z`.',
  'an RFC 3339 timestamp, e.g. "2026-11-21T17:03:00.000Z"',
  (v) => toCanonicalDateTime(v) !== undefined,
);
