import { Kind, getArgumentValues, getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import type {
  DocumentNode,
  FieldNode,
  GraphQLField,
  FragmentDefinitionNode,
  GraphQLObjectType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';
import type { ArgumentValues, ListSize } from '../modules/read/read.model.js';

/**
 * The weights of the complexity formula (docs/limits.md has worked examples).
 * A list's cost assumes `assumedListSize` elements unless its feature
 * declares a size (GraphQLFeature.listSizes, e.g. a metrics series: the
 * buckets its root's arguments allow): nested lists multiply, which is what
 * makes a deep list-of-lists expensive and a flat selection cheap.
 */
export const COMPLEXITY_WEIGHTS = {
  /** A scalar or enum field, or `__typename`. */
  leaf: 1,
  /** A single object (e.g. `hardwareDevice`, `mailingAddress`), plus what is selected in it. */
  object: 1,
  /** A list of objects, plus ASSUMED_LIST_SIZE times what is selected in each element. */
  list: 2,
  assumedListSize: 5,
  /**
   * A Mutation field (a write: a transaction, an audit entry, a read-back),
   * in place of `object`, plus what its payload selects.
   */
  mutation: 10,
} as const;

/** The costs of a document: each operation's, and each fragment's on its own. */
export interface DocumentCosts {
  readonly operations: ReadonlyMap<OperationDefinitionNode, number>;
  readonly fragments: ReadonlyMap<FragmentDefinitionNode, number>;
}

/**
 * The static cost of every operation and fragment of a document, computed
 * from the syntax tree alone, so it works before validation: every field the
 * document names counts where it appears (a fragment counts at each spread,
 * @skip/@include are not applied, repeated fields count each time), so the
 * cost never depends on variables or data. A field the schema does not know
 * counts 1 plus what is selected in it. A list whose feature declares its
 * size from the root field's arguments uses their literal values; when they
 * are variables, or inside a fragment, the largest size. Each fragment is measured once, so a
 * document that spreads fragments exponentially is still measured in linear
 * time; a cost never exceeds Number.MAX_SAFE_INTEGER. An operation costs at
 * least 1.
 */
export function measureDocumentCosts(schema: GraphQLSchema, document: DocumentNode): DocumentCosts {
  const definitions = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) definitions.set(definition.name.value, definition);
  }
  const measure = createMeasure(schema, definitions);
  const operations = new Map<OperationDefinitionNode, number>();
  const fragments = new Map<FragmentDefinitionNode, number>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      const rootType = schema.getRootType(definition.operation) ?? undefined;
      operations.set(definition, Math.max(1, measure.selectionSet(definition.selectionSet, rootType)));
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition, measure.fragment(definition.name.value));
    }
  }
  return { operations, fragments };
}

/** The static cost of one operation of a document (see measureDocumentCosts). */
export function measureOperationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): number {
  const rootType = schema.getRootType(operation.operation) ?? undefined;
  return Math.max(1, createMeasure(schema, fragments).selectionSet(operation.selectionSet, rootType));
}

type ObjectTypeOrUnknown = GraphQLObjectType | undefined;

/** Measures a selection set of `type`, below a root field whose literal arguments are `rootArgs` (undefined: unknown). */
type Measure = (set: SelectionSetNode, type: ObjectTypeOrUnknown, rootArgs?: ArgumentValues) => number;

function createMeasure(schema: GraphQLSchema, definitions: ReadonlyMap<string, FragmentDefinitionNode>) {
  const fragmentCosts = new Map<string, number>();
  const objectType = (name: string): ObjectTypeOrUnknown => {
    const type = schema.getType(name);
    return isObjectType(type) ? type : undefined;
  };
  const listSizes = schema.extensions.netgraph?.listSizes ?? {};
  const queryType = schema.getQueryType() ?? undefined;
  const mutationType = schema.getMutationType() ?? undefined;
  const selectionSet: Measure = (set, type, rootArgs) => {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const args = type !== undefined && type === queryType ? literalArguments(type, selection) : rootArgs;
        cost += fieldCost(type, selection, listSizes, args, selectionSet);
        const isWrite = type !== undefined && type === mutationType && selection.name.value !== '__typename';
        if (isWrite) cost += COMPLEXITY_WEIGHTS.mutation - COMPLEXITY_WEIGHTS.object;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        cost += selectionSet(selection.selectionSet, selection.typeCondition ? objectType(selection.typeCondition.name.value) : type, rootArgs);
      } else {
        cost += fragment(selection.name.value);
      }
    }
    return Math.min(cost, Number.MAX_SAFE_INTEGER);
  };

  // measured once whatever root it is spread under: argument-dependent list sizes take their largest
  const fragment = (name: string): number => {
    const known = fragmentCosts.get(name);
    if (known !== undefined) return known;
    // a cycle is a validation error; inside it, count nothing
    fragmentCosts.set(name, 0);
    const definition = definitions.get(name);
    const cost = definition ? selectionSet(definition.selectionSet, objectType(definition.typeCondition.name.value)) : 0;
    fragmentCosts.set(name, cost);
    return cost;
  };

  return { selectionSet, fragment };
}

/** The literal argument values of a root field (SDL defaults applied); undefined when one is a variable or does not coerce. */
function literalArguments(type: GraphQLObjectType, node: FieldNode): ArgumentValues | undefined {
  const definition: GraphQLField<unknown, unknown> | undefined = type.getFields()[node.name.value];
  if (definition === undefined || node.arguments?.some((argument) => usesVariable(argument.value))) return undefined;
  try {
    return getArgumentValues(definition, node, {});
  } catch {
    // not valid yet (this runs before validation): the largest size
    return undefined;
  }
}

/** True when a value refers to a variable, at any depth. */
export function usesVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(usesVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => usesVariable(field.value));
  return false;
}

function fieldCost(
  parent: ObjectTypeOrUnknown,
  node: FieldNode,
  listSizes: Readonly<Record<string, ListSize>>,
  rootArgs: ArgumentValues | undefined,
  measure: Measure,
): number {
  const name = node.name.value;
  const selections = node.selectionSet;
  const definition = name === '__typename' ? undefined : parent?.getFields()[name];
  const named = definition ? getNamedType(definition.type) : undefined;
  if (!definition || !isObjectType(named)) {
    // a leaf; one with a selection (invalid) still counts what it selects, so validation work stays bounded
    return COMPLEXITY_WEIGHTS.leaf + (selections ? measure(selections, undefined) : 0);
  }
  const inner = selections ? measure(selections, named, rootArgs) : 0;
  if (!isListType(getNullableType(definition.type))) return COMPLEXITY_WEIGHTS.object + inner;
  const size = Object.hasOwn(listSizes, `${parent?.name}.${name}`) ? (listSizes[`${parent?.name}.${name}`] as ListSize)(rootArgs) : COMPLEXITY_WEIGHTS.assumedListSize;
  return COMPLEXITY_WEIGHTS.list + size * inner;
}
