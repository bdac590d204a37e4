import { getVariableValues, parse } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSchema } from './schema.js';
import { coerceVariables } from './variables.js';

const schema = createSchema();

function operationOf(source: string): OperationDefinitionNode {
  return parse(source).definitions[0] as OperationDefinitionNode;
}

const OPERATIONS = [
  'query ($id: UUID!) { virtualDevice(UUID: $id) { label } }',
  'query ($id: UUID) { virtualDevice(UUID: $id) { label } }',
  'query ($slug: String!, $n: UUID!) { companyBySlug(slug: $slug) { name } networkClients(networkUUID: $n) { ip } }',
  'query ($slug: String = "acme") { companyBySlug(slug: $slug) { name } }',
  'query ($ids: [UUID!]!) { __typename }',
  'query { __typename }',
];

const INPUTS: Record<string, unknown>[] = [
  {},
  { id: '22222222-2222-4222-8222-222222222221' },
  { id: 'not-a-uuid' },
  { id: null },
  { id: 42 },
  { id: ['22222222-2222-4222-8222-222222222221'] },
  { id: '22222222-2222-4222-8222-222222222221', extra: true },
  { slug: 'acme', n: '11111111-1111-4111-8111-111111111111' },
  { slug: 7, n: '11111111-1111-4111-8111-111111111111' },
  { slug: 'acme' },
  { slug: null, n: null },
  { ids: ['22222222-2222-4222-8222-222222222221'] },
  { ids: 'x' },
];

describe('coerceVariables', () => {
  it.each(OPERATIONS)('gives what getVariableValues gives for %s', (source) => {
    const operation = operationOf(source);
    for (const inputs of INPUTS) {
      const expected = getVariableValues(schema, operation.variableDefinitions ?? [], inputs, { maxErrors: 20 });
      const actual = coerceVariables(schema, operation, inputs);
      expect(actual.coerced).toEqual(expected.coerced);
      expect(actual.errors?.map((error) => error.message)).toEqual(expected.errors?.map((error) => error.message));
      // twice: the second call uses what the first learned about the operation
      expect(coerceVariables(schema, operation, inputs).coerced).toEqual(expected.coerced);
    }
  });
});
