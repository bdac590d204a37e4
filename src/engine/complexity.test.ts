import { Kind, parse } from 'graphql';
import type { FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { measureDocumentCosts, measureOperationCost } from './complexity.js';
import { createSchema } from './schema.js';

const schema = createSchema();

function cost(query: string): number {
  const document = parse(query);
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION) operation ??= definition;
  }
  if (!operation) throw new Error('no operation');
  return measureOperationCost(schema, operation, fragments);
}

/** The spec's companyBySlug selection, as docs/limits.md prices it. */
const SPEC_COMPANY = `{ companyBySlug(slug: "acme") { name networks { UUID label isActive mailingAddress { city subdivisionCode }
  virtualDevices { label deviceType hardwareDevice { serialNumber isConnectedToBackend } }
  vlans { name vlanID isEnabled } ssids { ssid isEnabled } } } }`;

describe('operation complexity', () => {
  it('prices the examples of docs/limits.md', () => {
    expect(cost('{ __typename }')).toBe(1);
    expect(cost('{ virtualDevice(UUID: "x") { UUID label isOnline } }')).toBe(4);
    expect(cost('{ hardwareDevice(serialNumber: "x") { serialNumber deviceType deviceModel isConnectedToBackend } }')).toBe(5);
    expect(cost('{ networksForCompany(companySlug: "acme") { UUID label slug } }')).toBe(17);
    expect(cost('{ networkClients(networkUUID: "x") { macAddress ip lastSeen } }')).toBe(17);
    expect(cost('{ virtualDevicesForNetwork(networkUUID: "x") { UUID label deviceType deviceModel isOnline } }')).toBe(27);
    expect(cost(SPEC_COMPANY)).toBe(314);
  });

  it('charges a single object 1 plus its fields, and a list 2 plus 5 times each element', () => {
    expect(cost('{ virtualDevice(UUID: "x") { hardwareDevice { serialNumber } } }')).toBe(1 + (1 + 1));
    expect(cost('{ companyBySlug(slug: "a") { networks { UUID } } }')).toBe(1 + (2 + 5 * 1));
    // nesting lists multiplies: networks -> virtualDevices
    expect(cost('{ companyBySlug(slug: "a") { networks { virtualDevices { UUID } } } }')).toBe(1 + (2 + 5 * (2 + 5 * 1)));
  });

  it('counts every field the document names: aliases, repeats, fragments at each spread, skipped fields', () => {
    expect(cost('{ a: __typename b: __typename }')).toBe(2);
    expect(cost('{ virtualDevice(UUID: "x") { label label } }')).toBe(3);
    expect(cost('{ virtualDevice(UUID: "x") { ...F ...F } } fragment F on VirtualDevice { UUID label }')).toBe(5);
    expect(cost('{ virtualDevice(UUID: "x") { label @skip(if: true) ... on VirtualDevice { UUID } } }')).toBe(3);
  });

  it('charges a mutation field 10 in place of 1, plus its payload as a read; __typename of Mutation stays 1', () => {
    expect(cost('mutation { deleteVLAN(input: { vlanUUID: "x" }) { deletedVLANUUID } }')).toBe(10 + 1);
    expect(cost('mutation { createNetwork(input: { label: "l", slug: "s" }) { network { UUID vlans { vlanID } } } }')).toBe(10 + (1 + 1 + (2 + 5 * 1)));
    expect(cost('mutation { a: createSSID(input: { networkUUID: "x", ssid: "s" }) { ssid { UUID } } b: deleteSSID(input: { ssidUUID: "x" }) { deletedSSIDUUID } __typename }')).toBe(10 + 2 + 10 + 1 + 1);
  });

  it('is at least 1, even when every field is skipped', () => {
    expect(cost('query { ... @skip(if: true) { __typename } }')).toBe(1);
  });

  it('measures fragments spread exponentially often in linear time, without overflowing', () => {
    const levels = 60;
    let query = '{ companyBySlug(slug: "a") { ...F0 } }';
    for (let i = 0; i < levels; i++) query += ` fragment F${i} on Company { a: networks { UUID } ...F${i + 1} ...F${i + 1} }`;
    query += ` fragment F${levels} on Company { name }`;
    // 2^60 spreads: measured once per fragment, or this test would never end
    expect(cost(query)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('prices documents that are not valid, so validation work stays bounded', () => {
    // unknown fields count 1 plus what they select; a leaf with a selection counts it too
    expect(cost('{ nope { a b { c } } }')).toBe(1 + (1 + (1 + 1)));
    expect(cost('{ virtualDevice(UUID: "x") { label { a b } } }')).toBe(1 + (1 + 2));
    expect(cost(`{ ${'__typename '.repeat(2000)} }`)).toBe(2000);
    // a series root without its required filter: validation names the argument, so its list counts at the assumed size
    // (2 + 5 x 1), not at the 1,001 buckets the largest filter allows
    expect(cost('{ switchPortMetricsRate(virtualDeviceUUID: "x") { values { timestamp } } }')).toBe(1 + (2 + 5 * 1));
  });

  it('prices every operation and every fragment on its own, spread or not', () => {
    const document = parse('query A { __typename } query B { ...F } fragment F on Query { a: __typename b: __typename } fragment Unused on Company { name slug uuid }');
    const costs = measureDocumentCosts(schema, document);
    expect([...costs.operations.values()]).toEqual([1, 2]);
    expect([...costs.fragments.entries()].map(([f, c]) => [f.name.value, c])).toEqual([
      ['F', 2],
      ['Unused', 3],
    ]);
  });
});
