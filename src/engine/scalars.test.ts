import { getVariableValues, parse } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSchema } from './schema.js';

const schema = createSchema();

/** Coerces one variable the way the executor does before anything runs (errors become BAD_USER_INPUT). */
function coerce(type: string, value: unknown) {
  const operation = parse(`query ($v: ${type}) { __typename }`).definitions[0] as OperationDefinitionNode;
  return getVariableValues(schema, operation.variableDefinitions ?? [], { v: value });
}

describe('argument scalars', () => {
  // no argument of the schema takes a MAC address yet; the scalar is what will check one
  it.each([
    ['MacAddress', '0C-8D-DB-12-34-56', 'Expected a MAC address, lowercase and colon-separated'],
    ['MacAddress', '0c:8d:db:12:34', 'Expected a MAC address'],
    ['UUID', '3F0E6A5C-1A2B-4C3D-8E9F-0A1B2C3D4E5F', 'Expected a UUID in canonical lowercase form'],
    ['IP', '10.0.0.256', 'Expected an IPv4 or IPv6 address'],
    ['DateTime', '2026-13-01T00:00:00Z', 'Expected an RFC 3339 timestamp'],
  ])('refuses a malformed %s %j, naming the variable and the format', (type, value, expected) => {
    const result = coerce(type, value);
    expect(result.errors?.[0]?.message).toMatch(new RegExp(`^Variable "\\$v" got invalid value ".*"; Expected type "${type}". ${expected}`));
  });

  it.each([
    ['MacAddress', '0c:8d:db:12:34:56'],
    ['UUID', '3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f'],
    ['IP', '2001:db8::1'],
  ])('accepts a well-formed %s', (type, value) => {
    expect(coerce(type, value)).toEqual({ coerced: { v: value } });
  });
});
