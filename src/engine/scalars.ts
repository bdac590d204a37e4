import { GraphQLScalarType, Kind } from 'graphql';
import type { ValueNode } from 'graphql';
import { isIpAddress, isMacAddress, isUuid, toCanonicalDateTime } from '../kernel/formats.js';

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
