import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  getDirectiveValues,
  getNamedType,
  isObjectType,
} from 'graphql';
import type {
  FieldNode,
  FragmentDefinitionNode,
  GraphQLField,
  GraphQLObjectType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { invariant } from '../kernel/errors.js';
import type { Selection, SelectedField } from './read.model.js';

/** A root field of an operation, with every node that contributes to it (for locations and arguments). */
export interface PlannedRootField {
  readonly key: string;
  readonly name: string;
  readonly nodes: readonly FieldNode[];
  readonly definition?: GraphQLField<unknown, unknown>;
  /** What to select below it; undefined for scalars and `__typename`. */
  readonly selection?: Selection;
}

/** An operation reduced to what runs: its root fields, merged, with @skip/@include applied. */
export interface OperationPlan {
  readonly rootType: GraphQLObjectType;
  readonly fields: readonly PlannedRootField[];
  /** True when @skip/@include read variables, so the plan holds only for these variable values. */
  readonly variableDependent: boolean;
}

type Variables = Readonly<Record<string, unknown>>;

interface CollectContext {
  readonly schema: GraphQLSchema;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly variables: Variables;
  variableDependent: boolean;
}

/**
 * Plans a validated operation: fields grouped by response key in first-seen
 * order (as graphql-js executes them), fragments inlined, @skip/@include
 * applied, and nested selections of the same key merged.
 */
export function planOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  rootType: GraphQLObjectType,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Variables,
): OperationPlan {
  const context: CollectContext = { schema, fragments, variables, variableDependent: false };
  const grouped = collectFields(context, rootType, [operation.selectionSet]);
  const fields: PlannedRootField[] = [];
  for (const [key, nodes] of grouped) {
    const first = nodes[0];
    invariant(first !== undefined, 'plan-empty-group');
    const name = first.name.value;
    if (name === '__typename') {
      fields.push({ key, name, nodes });
      continue;
    }
    const definition = rootType.getFields()[name];
    invariant(definition !== undefined, `plan-unknown-root:${name}`);
    const type = getNamedType(definition.type);
    const selection = isObjectType(type) ? buildSelection(context, type, nodes) : undefined;
    fields.push({ key, name, nodes, definition, ...(selection ? { selection } : {}) });
  }
  return { rootType, fields, variableDependent: context.variableDependent };
}

/**
 * Plans the selection below one field of an object type (e.g. a mutation
 * payload's `network`), as planOperation does for root fields: fragments
 * inlined, @skip/@include applied, keys merged.
 */
export function planSelection(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Variables,
): Selection {
  return buildSelection({ schema, fragments, variables, variableDependent: false }, type, nodes);
}

function buildSelection(context: CollectContext, type: GraphQLObjectType, nodes: readonly FieldNode[]): Selection {
  const sets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  const grouped = collectFields(context, type, sets);
  const fields: SelectedField[] = [];
  for (const [key, group] of grouped) {
    const name = (group[0] as FieldNode).name.value;
    const definition = type.getFields()[name];
    const child = definition ? getNamedType(definition.type) : undefined;
    if (child !== undefined && isObjectType(child)) {
      fields.push({ key, name, selection: buildSelection(context, child, group) });
    } else {
      fields.push({ key, name });
    }
  }
  return { typeName: type.name, fields };
}

function collectFields(
  context: CollectContext,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
  into: Map<string, FieldNode[]> = new Map(),
  visitedFragments: Set<string> = new Set(),
): Map<string, FieldNode[]> {
  for (const selectionSet of selectionSets) {
    for (const selection of selectionSet.selections) {
      if (!shouldInclude(context, selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const group = into.get(key);
        if (group) group.push(selection);
        else into.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition && selection.typeCondition.name.value !== type.name) continue;
        collectFields(context, type, [selection.selectionSet], into, visitedFragments);
      } else {
        const name = selection.name.value;
        if (visitedFragments.has(name)) continue;
        visitedFragments.add(name);
        const fragment = context.fragments.get(name);
        if (!fragment || fragment.typeCondition.name.value !== type.name) continue;
        collectFields(context, type, [fragment.selectionSet], into, visitedFragments);
      }
    }
  }
  return into;
}

function shouldInclude(context: CollectContext, node: Parameters<typeof getDirectiveValues>[1]): boolean {
  if (!node.directives || node.directives.length === 0) return true;
  for (const directive of node.directives) {
    if (directive.arguments?.some((arg) => arg.value.kind === Kind.VARIABLE)) context.variableDependent = true;
  }
  const skip = getDirectiveValues(GraphQLSkipDirective, node, context.variables);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, context.variables);
  return include?.if !== false;
}
