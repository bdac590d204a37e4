import { buildASTSchema, parse, printSchema, GraphQLSchema } from 'graphql';
import type { GraphQLScalarType } from 'graphql';
import { invariant } from '../kernel/errors.js';
import type { GraphQLFeature, ListSize, MutationResolver } from './read.model.js';
import type { Services } from '../services.js';
import { assembleDocument, checkAssembly, mergeFeatures } from './assemble.js';
import { COMPLEXITY_WEIGHTS } from './complexity.js';
import { FEATURES } from './features.js';
import { DateTimeScalar, IPScalar, MacAddressScalar, UUIDScalar } from './scalars.js';

declare module 'graphql' {
  interface GraphQLSchemaExtensions {
    /**
     * The mutation resolvers, the argument-dependent list sizes (complexity) and the lists' items per
     * element of their actual cost, assembled with the schema (createSchema).
     */
    readonly netgraph?: {
      readonly mutations: MutationResolvers;
      readonly listSizes: Readonly<Record<string, ListSize>>;
      readonly listItemsPerElement: Readonly<Record<string, number>>;
    };
  }
}

/**
 * The frame of the public contract: the scalars and the two root types with
 * their descriptions. Every other type and every root field comes from a
 * feature's `<feature>.graphql.ts` (graphql/features.ts lists them). Fields
 * and types may be added; the published ones are never renamed or retyped.
 * `schema.graphql` at the repository root is the assembled schema as printed
 * by graphql-js, and a test fails when they drift.
 */
const FRAME_SDL = /* GraphQL */ `
"""
RFC 4122 UUID in canonical lowercase form, e.g. \`3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f\`.
"""
scalar UUID

"""
An RFC 3339 timestamp in UTC with milliseconds, e.g. \`2026-11-21T17:03:00.000Z\`.
"""
scalar DateTime

"""
A hardware address, lowercase and colon-separated, e.g. \`0c:8d:db:12:34:56\`.
"""
scalar MacAddress

"""
An IPv4 or IPv6 address literal, e.g. \`10.0.10.23\` or \`2001:db8::1\`.
"""
scalar IP

"""
Every read. Each field answers only for the company of the API key: an id or
slug of another company, or one that does not exist, answers \`null\` with an
UNAUTHORIZED error at that field's path, and the other fields still answer.
"""
type Query

"""
Every write. Needs an API key with scope \`read_write\`: with a read-only key
the whole request is refused with 403 FORBIDDEN and nothing runs.

The fields of a mutation run one after another, in document order. Each is
one transaction of its own, recorded exactly once in the audit log when it
changes something, and sees what the fields before it changed. Input rules are checked by the server;
a field that breaks one changes nothing and answers \`null\` with an error at
its path whose \`extensions.code\` says why and \`extensions.field\` names the
input field (e.g. \`input.slug\`, \`input.vlans[1].vlanID\`, or \`input\` itself).

The payload fields are nullable on purpose: one failing field nulls only
itself, and the fields before it stay done, so a client sees exactly which
succeeded. An id of another company answers exactly like one that does not
exist: UNAUTHORIZED, as for reads.

Update inputs change only the fields they give: an absent field stays as it
is; \`null\` clears a field that may be empty (\`mailingAddress\`) and is
BAD_USER_INPUT for any other. \`isOnline\` and \`isConnectedToBackend\` are
reported by devices and cannot be written: new devices start offline and
not connected.

Complexity: each mutation field costs ${COMPLEXITY_WEIGHTS.mutation} points plus what its payload
selection costs as a read (docs/limits.md).
"""
type Mutation
`;

/**
 * The Query fields of the first published contract print first, in its
 * order (schema.graphql has always shown them so); fields added later print
 * after them, in feature order.
 */
const FIRST_QUERY_FIELDS = ['virtualDevice', 'hardwareDevice', 'networksForCompany', 'virtualDevicesForNetwork', 'networkClients', 'companyBySlug'];

const SCALARS: readonly GraphQLScalarType[] = [UUIDScalar, DateTimeScalar, MacAddressScalar, IPScalar];

/**
 * Builds the executable schema from the features: reads and writes, with
 * the scalars' parsing attached, and the mutation resolvers in its
 * extensions (mutationResolversOf). Throws, naming each problem, when a
 * feature's SDL, read model, roots and resolvers do not match.
 */
export function createSchema(features: readonly GraphQLFeature<Services>[] = FEATURES): GraphQLSchema {
  const assembled = mergeFeatures(features);
  const document = assembleDocument(parse(FRAME_SDL), features, FIRST_QUERY_FIELDS);
  const { mutations, listSizes, listItemsPerElement } = assembled;
  const schema = new GraphQLSchema({ ...buildASTSchema(document).toConfig(), extensions: { netgraph: { mutations, listSizes, listItemsPerElement } } });
  checkAssembly(schema, assembled.readModel, assembled.mutations);
  for (const scalar of SCALARS) {
    const type = schema.getType(scalar.name) as GraphQLScalarType;
    type.serialize = scalar.serialize;
    type.parseValue = scalar.parseValue;
    type.parseLiteral = scalar.parseLiteral;
  }
  return schema;
}

/** The resolver of each Mutation field, by field name. */
export type MutationResolvers = Readonly<Record<string, MutationResolver<Services>>>;

/** The mutation resolvers the schema was built with. */
export function mutationResolversOf(schema: GraphQLSchema): MutationResolvers {
  const assembled = schema.extensions.netgraph;
  invariant(assembled !== undefined, 'schema-not-assembled');
  return assembled.mutations;
}

/** The schema reference served at GET /api/v1/schema.graphql and committed as schema.graphql. */
export function printSchemaReference(schema: GraphQLSchema): string {
  return `${printSchema(schema)}\n`;
}
