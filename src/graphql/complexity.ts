import { Kind, getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import type {
  FragmentDefinitionNode,
  GraphQLObjectType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';

/**
 * The weights of the complexity formula (docs/limits.md has worked examples).
 * A list has no size argument in this schema, so its cost assumes
 * ASSUMED_LIST_SIZE elements: nested lists multiply, which is what makes a
 * deep list-of-lists expensive and a flat selection cheap.
 */
export const COMPLEXITY_WEIGHTS = {
  /** A scalar or enum field, or `__typename`. */
  leaf: 1,
  /** A single object (e.g. `hardwareDevice`, `mailingAddress`), plus what is selected in it. */
  object: 1,
  /** A list of objects, plus ASSUMED_LIST_SIZE times what is selected in each element. */
  list: 2,
  assumedListSize: 5,
} as const;

/**
 * The static cost of an operation, computed from the document before
 * anything is planned or run: every field the document names counts where it
 * appears (a fragment counts at each spread, @skip/@include are not applied,
 * repeated fields count each time), so the cost of a document never depends
 * on variables or data. At least 1. Fragments are measured once each, so a
 * document that spreads fragments exponentially is still measured in linear
 * time; the result may be huge (never more than Number.MAX_SAFE_INTEGER).
 */
export function measureOperationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): number {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return 1;
  const fragmentCosts = new Map<string, number>();

  const measure = (selectionSet: SelectionSetNode, type: GraphQLObjectType): number => {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        cost += fieldCost(type, selection.name.value, selection.selectionSet, measure);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const inner = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (isObjectType(inner)) cost += measure(selection.selectionSet, inner);
      } else {
        cost += fragmentCost(selection.name.value);
      }
    }
    return Math.min(cost, Number.MAX_SAFE_INTEGER);
  };

  const fragmentCost = (name: string): number => {
    const known = fragmentCosts.get(name);
    if (known !== undefined) return known;
    // a cycle is a validation error already; count it as nothing while it is measured
    fragmentCosts.set(name, 0);
    const fragment = fragments.get(name);
    const type = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
    const cost = fragment && isObjectType(type) ? measure(fragment.selectionSet, type) : 0;
    fragmentCosts.set(name, cost);
    return cost;
  };

  return Math.max(1, measure(operation.selectionSet, rootType));
}

function fieldCost(
  parent: GraphQLObjectType,
  name: string,
  selectionSet: SelectionSetNode | undefined,
  measure: (selectionSet: SelectionSetNode, type: GraphQLObjectType) => number,
): number {
  const definition = name === '__typename' ? undefined : parent.getFields()[name];
  const named = definition ? getNamedType(definition.type) : undefined;
  if (!definition || !selectionSet || !isObjectType(named)) return COMPLEXITY_WEIGHTS.leaf;
  const inner = measure(selectionSet, named);
  return isListType(getNullableType(definition.type))
    ? COMPLEXITY_WEIGHTS.list + COMPLEXITY_WEIGHTS.assumedListSize * inner
    : COMPLEXITY_WEIGHTS.object + inner;
}
