import { getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { ArgumentValues, ListSize, Selection } from './read.model.js';
import { COMPLEXITY_WEIGHTS } from './complexity.js';
import type { OperationPlan } from './plan.js';

/** One field of a plan as the cost formula prices it. */
interface CostField {
  readonly key: string;
  /** A list of objects (a list of scalars is a leaf, as in the requested cost). */
  readonly list: boolean;
  /** What is selected in it; empty for a leaf. */
  readonly children: readonly CostField[];
  /** A list's size that depends on its root's arguments (GraphQLFeature.listSizes); undefined: the assumed size. */
  readonly size: ListSize | undefined;
  /** How many of a list's items count as one element (GraphQLFeature.listItemsPerElement). */
  readonly itemsPerElement: number;
  /** True when a list is at or below it: then what it costs depends on the answer. */
  readonly counted: boolean;
  /**
   * For a list with no list below it: the text each of its elements starts
   * with in the answer's JSON, `{"firstKey":`, when no object below the
   * element starts with the same key. The database writes the JSON without
   * spaces, in selection order, and a `"` inside a string is always escaped,
   * so counting this text counts the elements without parsing the answer.
   */
  readonly elementStart: string | undefined;
}

/** An operation's plan as the cost formula prices it, built once per plan. */
export interface CostPlan {
  /** One per root field of the plan, in its order. */
  readonly roots: readonly CostField[];
  /** True when some root selects a list: else the actual cost is the requested cost, with no look at the answer. */
  readonly counted: boolean;
}

/** Where a list's size and items per element are declared, by `Type.field` (schema extensions). */
export interface ListCosts {
  readonly listSizes: Readonly<Record<string, ListSize>>;
  readonly listItemsPerElement: Readonly<Record<string, number>>;
}

/** Builds the cost plan of a query plan: the fields it runs (merged, @skip/@include applied), with their weights. */
export function buildCostPlan(schema: GraphQLSchema, plan: OperationPlan): CostPlan {
  const lists: ListCosts = {
    listSizes: schema.extensions.netgraph?.listSizes ?? {},
    listItemsPerElement: schema.extensions.netgraph?.listItemsPerElement ?? {},
  };
  const roots = plan.fields.map((field) => costField(schema, lists, plan.rootType, field.key, field.name, field.selection));
  return { roots, counted: roots.some((root) => root.counted) };
}

function costField(
  schema: GraphQLSchema,
  lists: ListCosts,
  parent: GraphQLObjectType,
  key: string,
  name: string,
  selection: Selection | undefined,
): CostField {
  const definition = name === '__typename' ? undefined : parent.getFields()[name];
  const named = definition ? getNamedType(definition.type) : undefined;
  if (definition === undefined || !isObjectType(named) || selection === undefined) {
    return { key, list: false, children: [], size: undefined, itemsPerElement: 1, counted: false, elementStart: undefined };
  }
  const children = selection.fields.map((field) => costField(schema, lists, named, field.key, field.name, field.selection));
  const list = isListType(getNullableType(definition.type));
  const sizeKey = `${parent.name}.${name}`;
  const flat = !children.some((child) => child.counted);
  const first = children[0]?.key;
  const elementStart = list && flat && first !== undefined && !startsAnObjectBelow(children, first) ? `{"${first}":` : undefined;
  return {
    key,
    list,
    children,
    size: lists.listSizes[sizeKey],
    itemsPerElement: lists.listItemsPerElement[sizeKey] ?? 1,
    counted: list || !flat,
    elementStart,
  };
}

/** True when an object selected at any depth of `fields` starts with the key `key`. */
function startsAnObjectBelow(fields: readonly CostField[], key: string): boolean {
  return fields.some((field) => field.children.length > 0 && (field.children[0]?.key === key || startsAnObjectBelow(field.children, key)));
}

/**
 * The actual cost of an answer (docs/limits.md): the requested cost's
 * formula over the fields that ran, with each list counted at the elements
 * the answer holds instead of its assumed or declared size, and never more
 * than that size (so never more than requested). `answers` are the root
 * fields' JSON texts (null: not run, or null), `args` their argument values,
 * both in the plan's order.
 */
export function measureActualCost(costs: CostPlan, answers: readonly (string | null)[], args: readonly (ArgumentValues | undefined)[]): number {
  let total = 0;
  costs.roots.forEach((root, i) => {
    const requested = new Map<CostField, number>();
    const rootRequested = requestedCost(root, args[i], requested);
    if (!root.counted) {
      total += rootRequested;
      return;
    }
    const text = answers[i] ?? null;
    total += root.elementStart === undefined ? actualCost(root, text === null ? null : JSON.parse(text), requested) : flatListCost(root, text, requested);
  });
  return Math.max(1, total);
}

/** The cost of a root that is a list with no list below it, from its elements counted in the JSON text. */
function flatListCost(field: CostField, text: string | null, requested: ReadonlyMap<CostField, number>): number {
  let perElement = 0;
  for (const child of field.children) perElement += requested.get(child) ?? COMPLEXITY_WEIGHTS.leaf;
  const most = (requested.get(field) ?? 0) - COMPLEXITY_WEIGHTS.list;
  const start = field.elementStart as string;
  // past what the priced size allows, more elements change nothing: stop counting there
  const enough = perElement === 0 ? 0 : Math.ceil(most / perElement) * field.itemsPerElement;
  let items = 0;
  for (let at = text === null ? -1 : text.indexOf(start); at !== -1 && items < enough; at = (text as string).indexOf(start, at + start.length)) items++;
  return COMPLEXITY_WEIGHTS.list + Math.min(Math.ceil(items / field.itemsPerElement) * perElement, most);
}

/** A field's requested cost for its root's arguments, recorded in `into` for each field of an answer that depends on it. */
function requestedCost(field: CostField, args: ArgumentValues | undefined, into: Map<CostField, number>): number {
  if (field.children.length === 0) return COMPLEXITY_WEIGHTS.leaf;
  let inner = 0;
  for (const child of field.children) inner += requestedCost(child, args, into);
  const size = field.size === undefined ? COMPLEXITY_WEIGHTS.assumedListSize : field.size(args);
  const cost = field.list ? COMPLEXITY_WEIGHTS.list + size * inner : COMPLEXITY_WEIGHTS.object + inner;
  into.set(field, cost);
  return cost;
}

/** A field's cost for the value the answer holds at it (undefined or null: nothing). */
function actualCost(field: CostField, value: unknown, requested: ReadonlyMap<CostField, number>): number {
  if (!field.counted) return requested.get(field) ?? COMPLEXITY_WEIGHTS.leaf;
  if (!field.list) {
    // an object: its own weight, and what is selected in it, lists by what they hold (nothing, when it is null)
    const object = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    let cost = COMPLEXITY_WEIGHTS.object;
    for (const child of field.children) cost += actualCost(child, object?.[child.key], requested);
    return cost;
  }
  const items: readonly unknown[] = Array.isArray(value) ? value : [];
  let inner = 0;
  if (field.children.some((child) => child.counted)) {
    for (const item of items) {
      const object = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined;
      for (const child of field.children) inner += actualCost(child, object?.[child.key], requested);
    }
    inner = Math.ceil(inner / field.itemsPerElement);
  } else {
    let perElement = 0;
    for (const child of field.children) perElement += requested.get(child) ?? COMPLEXITY_WEIGHTS.leaf;
    inner = Math.ceil(items.length / field.itemsPerElement) * perElement;
  }
  const most = (requested.get(field) ?? 0) - COMPLEXITY_WEIGHTS.list;
  return COMPLEXITY_WEIGHTS.list + Math.min(inner, most);
}
