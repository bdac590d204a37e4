import { Kind, getNamedType, isListType, isNonNullType, isObjectType, parse } from 'graphql';
import type {
  DefinitionNode,
  DocumentNode,
  FieldDefinitionNode,
  GraphQLField,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  ObjectTypeDefinitionNode,
} from 'graphql';
import type { FieldMapping, GraphQLFeature, ListSize, MutationResolver, ReadModel, RootDefinitions, TypeMappings } from './read.model.js';
import type { Services } from '../services.js';
import { addOnce, buildReadModel, throwIfAny } from './read-model.js';

/*
 * Puts the features together: their SDL into one document, their read models,
 * roots and resolvers into one of each, and checks that these agree with the
 * schema, so that a field without a mapping fails at start-up, not on the
 * first request that selects it.
 */

/** Definitions in the order schema.graphql prints them. */
interface Sections {
  readonly leaves: DefinitionNode[];
  readonly objects: DefinitionNode[];
  readonly inputs: DefinitionNode[];
  readonly queryFields: FieldDefinitionNode[];
  readonly mutationFields: FieldDefinitionNode[];
}

/**
 * One SDL document from the frame (the scalars, and the Query and Mutation
 * types with their descriptions and no fields) and the features' SDL, in
 * the order schema.graphql prints it: scalars, enums, Query, object types,
 * Mutation, inputs, payloads (the Mutation fields' types); each section in
 * feature order, Query's fields with `firstQueryFields` first.
 */
export function assembleDocument(frame: DocumentNode, features: readonly GraphQLFeature[], firstQueryFields: readonly string[]): DocumentNode {
  const sections: Sections = { leaves: [], objects: [], inputs: [], queryFields: [], mutationFields: [] };
  for (const feature of features) addFeature(sections, parse(feature.sdl).definitions);
  const query = frameType(frame, 'Query');
  const mutation = frameType(frame, 'Mutation');
  const payloadNames = new Set(sections.mutationFields.map((field) => namedTypeOf(field)));
  const isPayload = (node: DefinitionNode) => node.kind === Kind.OBJECT_TYPE_DEFINITION && payloadNames.has(node.name.value);
  const definitions = [
    ...frame.definitions.filter((node) => node !== query && node !== mutation),
    ...sections.leaves,
    { ...query, fields: orderFields(sections.queryFields, firstQueryFields) },
    ...sections.objects.filter((node) => !isPayload(node)),
    ...(sections.mutationFields.length > 0 ? [{ ...mutation, fields: sections.mutationFields }] : []),
    ...sections.inputs,
    ...sections.objects.filter(isPayload),
  ];
  return { kind: Kind.DOCUMENT, definitions };
}

function addFeature(sections: Sections, definitions: readonly DefinitionNode[]): void {
  for (const node of definitions) {
    if (node.kind === Kind.OBJECT_TYPE_EXTENSION && (node.name.value === 'Query' || node.name.value === 'Mutation')) {
      (node.name.value === 'Query' ? sections.queryFields : sections.mutationFields).push(...(node.fields ?? []));
    } else if (node.kind === Kind.SCALAR_TYPE_DEFINITION || node.kind === Kind.ENUM_TYPE_DEFINITION) {
      sections.leaves.push(node);
    } else if (node.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      sections.inputs.push(node);
    } else {
      sections.objects.push(node);
    }
  }
}

function frameType(frame: DocumentNode, name: string): ObjectTypeDefinitionNode {
  const node = frame.definitions.find((d): d is ObjectTypeDefinitionNode => d.kind === Kind.OBJECT_TYPE_DEFINITION && d.name.value === name);
  if (node === undefined) throw new Error(`schema: the frame has no type ${name}`);
  return node;
}

function namedTypeOf(field: FieldDefinitionNode): string {
  let type = field.type;
  while (type.kind !== Kind.NAMED_TYPE) type = type.type;
  return type.name.value;
}

function orderFields(fields: readonly FieldDefinitionNode[], first: readonly string[]): FieldDefinitionNode[] {
  const byName = new Map(fields.map((field) => [field.name.value, field]));
  const missing = first.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`schema: no feature declares the Query fields ${missing.join(', ')}`);
  return [...first.map((name) => byName.get(name) as FieldDefinitionNode), ...fields.filter((field) => !first.includes(field.name.value))];
}

/** What the features assemble to besides the types: the read model and the mutation resolvers. */
export interface AssembledFeatures {
  readonly readModel: ReadModel;
  readonly mutations: Readonly<Record<string, MutationResolver<Services>>>;
  /** The list sizes that depend on arguments, for complexity (graphql/complexity.ts), by `Type.field`. */
  readonly listSizes: Readonly<Record<string, ListSize>>;
  /** How many items make one element of a list's actual cost, where not one (graphql/actual-cost.ts), by `Type.field`. */
  readonly listItemsPerElement: Readonly<Record<string, number>>;
}

/** The features' read models, roots and resolvers, merged; throws naming every field, root or resolver that two features declare. */
export function mergeFeatures(features: readonly GraphQLFeature<Services>[]): AssembledFeatures {
  const problems: string[] = [];
  const mutations: Record<string, MutationResolver<Services>> = {};
  const listSizes: Record<string, ListSize> = {};
  const listItemsPerElement: Record<string, number> = {};
  for (const feature of features) {
    addOnce(mutations, feature.mutations, (name) => problems.push(`mutations: ${name} has two resolvers`));
    addOnce(listSizes, feature.listSizes ?? {}, (name) => problems.push(`complexity: ${name} has two list sizes`));
    addOnce(listItemsPerElement, feature.listItemsPerElement ?? {}, (name) => problems.push(`complexity: ${name} has two item counts per element`));
  }
  throwIfAny(problems);
  return { readModel: buildReadModel(features), mutations, listSizes, listItemsPerElement };
}

/**
 * Checks that the read model and the resolvers cover the schema, both ways:
 * every Query field has a root, and every field of every object type
 * reachable from Query or read back by a mutation has a mapping of its kind;
 * every mapping and root names such a field; every Mutation field has a
 * resolver and every resolver names one. Throws naming each problem, e.g.
 * `read model: no mapping for VLAN.isDefault`.
 */
export function checkAssembly(schema: GraphQLSchema, readModel: ReadModel, mutations: Readonly<Record<string, MutationResolver<Services>>>): void {
  const queryFields = schema.getQueryType()?.getFields() ?? {};
  const mutationFields = schema.getMutationType()?.getFields() ?? {};
  const reachable = new Map<string, GraphQLObjectType>();
  for (const field of Object.values(queryFields)) collectObjectTypes(getNamedType(field.type), reachable);
  for (const field of Object.values(mutationFields)) {
    const payload = getNamedType(field.type);
    if (isObjectType(payload)) for (const read of Object.values(payload.getFields())) collectObjectTypes(getNamedType(read.type), reachable);
  }
  throwIfAny([
    ...checkRoots(queryFields, readModel.roots, readModel.internalRoots),
    ...checkMappings(reachable, readModel.types),
    ...checkResolvers(mutationFields, mutations),
  ]);
}

type Fields = Readonly<Record<string, GraphQLField<unknown, unknown>>>;

function checkRoots(queryFields: Fields, roots: RootDefinitions, internalRoots: RootDefinitions): string[] {
  const problems: string[] = [];
  for (const field of Object.values(queryFields)) {
    const root = own(roots, field.name);
    if (root === undefined) {
      problems.push(`read model: no root for Query.${field.name}`);
      continue;
    }
    if (root.kind !== 'value' && (root.list !== undefined) !== isListType(nullable(field))) {
      problems.push(`read model: the root ${field.name} ${root.list ? 'lists rows' : 'is one row'}, but its type is ${field.type}`);
    }
    const declared = root.arguments.map((argument) => argument.name).join(', ');
    const inSchema = field.args.map((argument) => argument.name).join(', ');
    if (declared !== inSchema) problems.push(`read model: the root ${field.name} declares the arguments (${declared}), but its field has (${inSchema})`);
  }
  for (const name of Object.keys(roots)) if (!Object.hasOwn(queryFields, name)) problems.push(`read model: the root ${name} names no Query field`);
  for (const name of Object.keys(internalRoots)) if (Object.hasOwn(queryFields, name)) problems.push(`read model: the internal root ${name} is a Query field`);
  return problems;
}

function checkMappings(reachable: ReadonlyMap<string, GraphQLObjectType>, types: TypeMappings): string[] {
  const problems: string[] = [];
  for (const type of reachable.values()) {
    const mappings = own(types, type.name) ?? {};
    for (const field of Object.values(type.getFields())) {
      const mapping = own(mappings, field.name);
      const name = `${type.name}.${field.name}`;
      if (mapping === undefined) problems.push(`read model: no mapping for ${name}`);
      else if (!kindFits(mapping, field)) problems.push(`read model: ${name} maps as ${mapping.kind}, but its type is ${field.type}`);
    }
  }
  for (const [typeName, fields] of Object.entries(types)) {
    const schemaFields = reachable.get(typeName)?.getFields() ?? {};
    for (const name of Object.keys(fields)) {
      if (!Object.hasOwn(schemaFields, name)) problems.push(`read model: the mapping of ${typeName}.${name} names no schema field`);
    }
  }
  return problems;
}

function checkResolvers(mutationFields: Fields, resolvers: Readonly<Record<string, MutationResolver<Services>>>): string[] {
  return [
    ...Object.keys(mutationFields)
      .filter((name) => !Object.hasOwn(resolvers, name))
      .map((name) => `mutations: no resolver for Mutation.${name}`),
    ...Object.keys(resolvers)
      .filter((name) => !Object.hasOwn(mutationFields, name))
      .map((name) => `mutations: the resolver ${name} names no Mutation field`),
  ];
}

/** The entry `key` of a record when it holds one of its own (never an Object.prototype member). */
function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function collectObjectTypes(type: GraphQLNamedType, into: Map<string, GraphQLObjectType>): void {
  if (!isObjectType(type) || into.has(type.name)) return;
  into.set(type.name, type);
  for (const field of Object.values(type.getFields())) collectObjectTypes(getNamedType(field.type), into);
}

function nullable(field: GraphQLField<unknown, unknown>) {
  return isNonNullType(field.type) ? field.type.ofType : field.type;
}

/** A column for scalars and enums; rows for a list of objects; a joined row, or one embedded in the same row, for an object. */
function kindFits(mapping: FieldMapping, field: GraphQLField<unknown, unknown>): boolean {
  if (!isObjectType(getNamedType(field.type))) return mapping.kind === 'scalar' || mapping.kind === 'computed';
  if (isListType(nullable(field))) return mapping.kind === 'list';
  return mapping.kind === 'object' || mapping.kind === 'embedded';
}
