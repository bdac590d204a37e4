import { Kind, parse, validate } from 'graphql';
import type { FragmentDefinitionNode, GraphQLObjectType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { SqlDialect } from '../db/dialect.js';
import type { GraphQLFeature, RootDefinition, RootRead } from './read.model.js';
import { compileRead } from './read.repository.js';
import type { CompiledRead } from './read.repository.js';
import { planOperation } from './plan.js';
import type { OperationPlan } from './plan.js';
import { buildReadModel } from './read-model.js';

/** The reads a plan compiles to, and where each planned root field's answer is among them. */
export interface PlannedReads {
  readonly reads: readonly RootRead[];
  /** For each planned root field, its index among `reads`, or -1 (`__typename`, excluded, or not a read). */
  readonly readIndex: readonly number[];
}

/** The reads of a plan's root fields, leaving out those at the indexes in `exclude` (arguments that failed their check). */
export function planReads(
  plan: OperationPlan,
  roots: ReadonlyMap<string, RootDefinition>,
  exclude: ReadonlySet<number> = new Set(),
): PlannedReads {
  const reads: RootRead[] = [];
  const readIndex = plan.fields.map((field, i) => {
    const root = roots.get(field.name);
    if (root === undefined || exclude.has(i) || !field.selection) return -1;
    const argumentsGiven = new Set(field.nodes.flatMap((node) => (node.arguments ?? []).map((argument) => argument.name.value)));
    reads.push({ root: field.name, selection: field.selection, argumentsGiven });
    return reads.length - 1;
  });
  return { reads, readIndex };
}

/**
 * Compiles a query document as the executor does for an API key's request:
 * the one statement's text, its parameter slots and, on PostgreSQL, its
 * batch form, with the read model of `features` (those the schema was
 * built from). For tests and tools that look at the SQL; throws when the
 * document does not validate, is not a query, or names no operation of it.
 */
export function compileDocument(
  schema: GraphQLSchema,
  features: readonly GraphQLFeature<never>[],
  dialect: SqlDialect,
  query: string,
  operationName?: string,
): CompiledRead {
  const document = parse(query);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`compileDocument: ${errors.map((error) => error.message).join('; ')}`);
  const operations = document.definitions.filter((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((node) => operationName === undefined || node.name?.value === operationName);
  if (operation?.operation !== 'query') throw new Error(`compileDocument: no query operation ${operationName ?? ''}`);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const node of document.definitions) if (node.kind === Kind.FRAGMENT_DEFINITION) fragments.set(node.name.value, node);
  const readModel = buildReadModel(features);
  const plan = planOperation(schema, operation, schema.getQueryType() as GraphQLObjectType, fragments, {});
  const { reads } = planReads(plan, new Map(Object.entries(readModel.roots)));
  return compileRead(dialect, readModel, reads, true);
}
