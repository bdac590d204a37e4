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
import type { ArgumentValues, ListSize } from './read.model.js';

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
  /**
   * Operations whose cost depends on their variables: a root field whose
   * arguments size a list (a metrics series) takes them from variables. Their
   * cost here counts such a list at the assumed size; each request prices them
   * again with its variables (measureOperationCost).
   */
  readonly variablePriced: ReadonlySet<OperationDefinitionNode>;
}

/**
 * The static cost of every operation and fragment of a document, computed
 * from the syntax tree alone, so it works before validation: every field the
 * document names counts where it appears (a fragment counts at each spread,
 * @skip/@include are not applied, repeated fields count each time), so the
 * cost never depends on variables or data. A field the schema does not know
 * counts 1 plus what is selected in it. A list whose feature declares its
 * size from the root field's arguments uses their literal values; when they
 * are variables, the assumed size here (the operation is then priced again
 * per request with its variables, see `variablePriced`), and inside a
 * fragment the largest size. Each fragment is measured once, so a
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
  const variablePriced = new Set<OperationDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      const rootType = schema.getRootType(definition.operation) ?? undefined;
      measure.sizedByVariables = false;
      operations.set(definition, Math.max(1, measure.selectionSet(definition.selectionSet, rootType)));
      if (measure.sizedByVariables) variablePriced.add(definition);
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition, measure.fragment(definition.name.value));
    }
  }
  return { operations, fragments, variablePriced };
}

/**
 * The cost of one operation of a document (see measureDocumentCosts); with
 * `variables` (coerced), root arguments given as variables size their lists
 * as literal ones do.
 */
export function measureOperationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables?: Readonly<Record<string, unknown>>,
): number {
  const rootType = schema.getRootType(operation.operation) ?? undefined;
  return Math.max(1, createMeasure(schema, fragments, variables).selectionSet(operation.selectionSet, rootType));
}

type ObjectTypeOrUnknown = GraphQLObjectType | undefined;

/** Measures a selection set of `type`, below a root field whose literal arguments are `rootArgs` (undefined: unknown). */
type Measure = (set: SelectionSetNode, type: ObjectTypeOrUnknown, rootArgs?: ArgumentValues) => number;

/** Marks a root field's arguments as taken from variables not at hand: its lists count at the assumed size. */
const FROM_VARIABLES: ArgumentValues = Object.freeze({});
/**
 * Marks a root field's arguments as not valid (a required one missing, a
 * literal of the wrong type): validation refuses the document and names the
 * argument, so its lists count at the assumed size rather than the largest
 * any argument allows, which would answer COMPLEXITY_LIMIT_EXCEEDED first.
 */
const NOT_VALID: ArgumentValues = Object.freeze({});

function createMeasure(schema: GraphQLSchema, definitions: ReadonlyMap<string, FragmentDefinitionNode>, variables?: Readonly<Record<string, unknown>>) {
  const fragmentCosts = new Map<string, number>();
  const objectType = (name: string): ObjectTypeOrUnknown => {
    const type = schema.getType(name);
    return isObjectType(type) ? type : undefined;
  };
  const listSizes = schema.extensions.netgraph?.listSizes ?? {};
  const queryType = schema.getQueryType() ?? undefined;
  const mutationType = schema.getMutationType() ?? undefined;
  const measure = { selectionSet: undefined as unknown as Measure, fragment: undefined as unknown as (name: string) => number, sizedByVariables: false };
  const sizeOf = (key: string, rootArgs: ArgumentValues | undefined): number => {
    if (!Object.hasOwn(listSizes, key) || rootArgs === NOT_VALID) return COMPLEXITY_WEIGHTS.assumedListSize;
    if (rootArgs !== FROM_VARIABLES) return (listSizes[key] as ListSize)(rootArgs);
    measure.sizedByVariables = true;
    return COMPLEXITY_WEIGHTS.assumedListSize;
  };
  const selectionSet: Measure = (set, type, rootArgs) => {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const args = type !== undefined && type === queryType ? rootArguments(type, selection, variables) : rootArgs;
        cost += fieldCost(type, selection, sizeOf, args, selectionSet);
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

  measure.selectionSet = selectionSet;
  measure.fragment = fragment;
  return measure;
}

/**
 * The argument values of a root field (SDL defaults applied): from its
 * literals, and from `variables` when given; FROM_VARIABLES when one is a
 * variable and none are given; NOT_VALID when they do not coerce.
 */
function rootArguments(type: GraphQLObjectType, node: FieldNode, variables: Readonly<Record<string, unknown>> | undefined): ArgumentValues | undefined {
  const definition: GraphQLField<unknown, unknown> | undefined = type.getFields()[node.name.value];
  if (definition === undefined) return undefined;
  if (variables === undefined && node.arguments?.some((argument) => usesVariable(argument.value))) return FROM_VARIABLES;
  try {
    return getArgumentValues(definition, node, variables ?? {});
  } catch {
    // this runs before validation, which will refuse these arguments
    return NOT_VALID;
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
  sizeOf: (key: string, rootArgs: ArgumentValues | undefined) => number,
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
  const size = sizeOf(`${parent?.name}.${name}`, rootArgs);
  return COMPLEXITY_WEIGHTS.list + size * inner;
}
