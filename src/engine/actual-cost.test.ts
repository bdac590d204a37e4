import { Kind, parse } from 'graphql';
import type { GraphQLObjectType, OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { ArgumentValues } from './read.model.js';
import { buildCostPlan, measureActualCost } from './actual-cost.js';
import { measureOperationCost } from './complexity.js';
import { planOperation } from './plan.js';
import { createSchema } from './schema.js';

const schema = createSchema();
const NETWORK = '11111111-1111-4111-8111-111111111111';

/** The requested and the actual cost of a one-root query whose root answers `answer`, with `args` as its arguments. */
function costs(query: string, answer: unknown, args: ArgumentValues): { requested: number; actual: number } {
  const operation = parse(query).definitions[0] as OperationDefinitionNode;
  expect(operation.kind).toBe(Kind.OPERATION_DEFINITION);
  const plan = planOperation(schema, operation, schema.getQueryType() as GraphQLObjectType, new Map(), {});
  const requested = measureOperationCost(schema, operation, new Map());
  const actual = Math.min(requested, measureActualCost(buildCostPlan(schema, plan), [answer === null ? null : JSON.stringify(answer)], [args]));
  return { requested, actual };
}

const values = (n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: `2026-03-01T00:${String(i % 60).padStart(2, '0')}:00.000Z`, value: i }));

describe('the actual cost of an answer', () => {
  it('counts a series by its buckets, ten to an element, and never above the size it was priced at', () => {
    const filter = { durationSeconds: 86_400, stepSeconds: 300 };
    const query = `{ networkUplinkQuality(networkUUID: "${NETWORK}", filter: { durationSeconds: 86400, stepSeconds: 300 }) { values { timestamp value } } }`;
    // 289 buckets at most: 29 elements of 2 points
    expect(costs(query, { values: values(13) }, { networkUUID: NETWORK, filter })).toEqual({ requested: 61, actual: 1 + 2 + 2 * 2 });
    expect(costs(query, { values: [] }, { networkUUID: NETWORK, filter })).toEqual({ requested: 61, actual: 3 });
    expect(costs(query, { values: values(400) }, { networkUUID: NETWORK, filter })).toEqual({ requested: 61, actual: 61 });
    expect(costs(query, null, { networkUUID: NETWORK, filter })).toEqual({ requested: 61, actual: 3 });
  });

  it('counts a throughput series, two values a bucket, by its values', () => {
    const filter = { durationSeconds: 3600, stepSeconds: 300 };
    const query = `{ networkUplinkThroughput(networkUUID: "${NETWORK}", filter: { durationSeconds: 3600, stepSeconds: 300 }) { values { value direction } } }`;
    // 13 buckets, 26 values: 3 elements
    expect(costs(query, { values: values(26) }, { networkUUID: NETWORK, filter })).toEqual({ requested: 1 + 2 + 3 * 2, actual: 9 });
    expect(costs(query, { values: values(8) }, { networkUUID: NETWORK, filter })).toEqual({ requested: 9, actual: 1 + 2 + 1 * 2 });
  });

  it('counts nested lists element by element, each at most at the size it was priced at', () => {
    const query = '{ networksForCompany(companySlug: "acme") { label vlans { name } } }';
    const network = (vlans: number) => ({ label: 'n', vlans: Array.from({ length: vlans }, () => ({ name: 'v' })) });
    // requested 2 + 5 × (1 + (2 + 5 × 1)) = 42
    expect(costs(query, [network(0), network(2)], { companySlug: 'acme' })).toEqual({ requested: 42, actual: 2 + (1 + 2) + (1 + 2 + 2) });
    // a list longer than priced counts as priced: 9 VLANs as 5, 7 networks as 5 of the most they can cost
    expect(costs(query, [network(9)], { companySlug: 'acme' })).toEqual({ requested: 42, actual: 2 + 1 + 2 + 5 });
    expect(costs(query, Array.from({ length: 7 }, () => network(9)), { companySlug: 'acme' })).toEqual({ requested: 42, actual: 42 });
  });

  it('counts a flat list by its elements in the text, whatever its strings hold, and stops at its priced size', () => {
    const query = `{ networkClients(networkUUID: "${NETWORK}") { macAddress clientName accessPoint { label } } }`;
    // a name that spells an element's start is escaped in the JSON text, so it is no element
    const client = (clientName: string) => ({ macAddress: '3c:22:fb:00:00:01', clientName, accessPoint: { label: '{"macAddress":' } });
    // requested 2 + 5 × (2 + 2) = 22
    expect(costs(query, [client('{"macAddress":"x"}'), client('a')], { networkUUID: NETWORK })).toEqual({ requested: 22, actual: 2 + 2 * 4 });
    expect(costs(query, [], { networkUUID: NETWORK })).toEqual({ requested: 22, actual: 2 });
    expect(costs(query, null, { networkUUID: NETWORK })).toEqual({ requested: 22, actual: 2 });
    expect(costs(query, Array.from({ length: 60 }, () => client('a')), { networkUUID: NETWORK })).toEqual({ requested: 22, actual: 22 });
    // an object below the element starting with the element's first key: counted from the parsed answer instead
    const same = `{ networkClients(networkUUID: "${NETWORK}") { x: macAddress accessPoint { x: label } } }`;
    expect(costs(same, [{ x: 'a', accessPoint: { x: 'b' } }, { x: 'c', accessPoint: null }], { networkUUID: NETWORK })).toEqual({ requested: 2 + 5 * 3, actual: 2 + 2 * 3 });
  });

  it('counts the events of a page by what it holds, up to its limit', () => {
    const query = `{ recentEventLogEventsPage(networkUUID: "${NETWORK}", limit: 20) { total events { eventType virtualDevice { label } } } }`;
    const events = (n: number) => Array.from({ length: n }, () => ({ eventType: 'x', virtualDevice: null }));
    // requested 1 + 1 + (2 + 20 × (1 + 2)) = 64
    expect(costs(query, { total: 3, events: events(3) }, { networkUUID: NETWORK, limit: 20 })).toEqual({ requested: 64, actual: 1 + 1 + 2 + 3 * 3 });
  });
});
