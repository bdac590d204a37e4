import { GraphQLError, Kind, getArgumentValues } from 'graphql';
import type { FieldNode, GraphQLObjectType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { invariant } from '../kernel/errors.js';
import type { ErrorCode } from '../kernel/errors.js';
import type { Caller } from '../kernel/caller.js';
import type { ArgumentValues, RootDefinition, RootRead } from './read.model.js';
import type { CompiledRead } from './read.repository.js';
import { checkRootArguments, namingArguments } from './read.service.js';
import type { ReadService } from './read.service.js';
import { buildCostPlan, measureActualCost } from './actual-cost.js';
import type { CostPlan } from './actual-cost.js';
import { planReads } from './compile.js';
import { usesVariable } from './complexity.js';
import type { DocumentCache, PreparedDocument } from './document.js';
import type { MutationExecutor, MutationRequestContext } from './mutate.js';
import { planOperation } from './plan.js';
import type { OperationPlan, PlannedRootField } from './plan.js';
import { checkAssembly } from './assemble.js';
import { mutationResolversOf } from './schema.js';
import { coerceVariables } from './variables.js';
import { toWireError } from './wire.js';
import type { ExecutedOutcome, WireError } from './wire.js';

/** The parameters of a GraphQL-over-HTTP request, already checked for type. */
export interface GraphQLRequest {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>> | null;
  readonly operationName: string | null;
  /** The request's `extensions` (`{"cost": true}` asks for the cost in the answer's, docs/limits.md); null when absent. */
  readonly extensions?: Readonly<Record<string, unknown>> | null;
}

/**
 * A request stopped before anything ran; `phase` tells which kind of failure,
 * for the HTTP status (`forbidden`: a mutation with a read-only key).
 */
export interface RequestErrorOutcome {
  readonly kind: 'request-error';
  readonly phase: 'validation' | 'request' | 'complexity' | 'forbidden';
  readonly errors: readonly WireError[];
  readonly operationName: string | null;
  /** The root fields the operation names (operationRootFields); empty when no operation was selected. */
  readonly rootFields: readonly string[];
}

/** What happened to a request. */
export type ExecutionOutcome = RequestErrorOutcome | ExecutedOutcome;

/** A valid operation, planned and priced, that has not run yet. */
export interface ReadyOperation {
  readonly kind: 'ready';
  readonly operationName: string | null;
  /** Its static complexity (graphql/complexity.ts). */
  readonly cost: number;
  /** The root fields it names (operationRootFields), for the per-key request log. */
  readonly rootFields: readonly string[];
  /** Runs it; `deadline` (a performance.now() time) bounds its database work. */
  run(options?: { readonly deadline?: number }): Promise<ExecutedOutcome>;
}

interface CachedPlan {
  readonly plan: OperationPlan;
  readonly compiled: CompiledRead;
  readonly reads: readonly RootRead[];
  /** For each planned root field, its index among the compiled reads, or -1 for `__typename`. */
  readonly readIndex: readonly number[];
  /**
   * What checking the root arguments gives, kept when every request gets the
   * same: the plan does not depend on variables and no root argument refers
   * to one. null when it is computed per request; unset before the first.
   */
  checkedArguments?: CheckedPlan | null;
  /** The plan as the cost formula prices it; built at the first answer. */
  costPlan?: CostPlan;
}

/** A plan after its root arguments are checked: what runs, the field errors of malformed arguments, the arguments of what runs. */
interface CheckedPlan {
  readonly plan: CachedPlan;
  readonly errors: readonly WireError[];
  readonly args: readonly ArgumentValues[];
}

/** What an executor is built from. */
export interface ExecutorDeps {
  readonly schema: GraphQLSchema;
  readonly documents: DocumentCache;
  readonly reads: ReadService;
  /** Runs mutation operations; without it (the dashboard's reads) mutations are refused as invalid. */
  readonly mutations?: MutationExecutor;
}

/** For mutations when the caller gives no request context (a test, a script): unexpected errors are not logged. */
const NO_REQUEST: MutationRequestContext = { requestId: '-', onUnexpectedError: () => undefined };

/** Creates the executor for one schema and store: queries through the compiled read path, mutations through `mutations`. */
export function createExecutor(deps: ExecutorDeps) {
  const { schema, documents, reads, mutations } = deps;
  const queryType = schema.getQueryType() as GraphQLObjectType;
  // the read model the reads compile with must cover this schema, or a field would fail only when first selected
  checkAssembly(schema, reads.model, mutationResolversOf(schema));
  const roots: ReadonlyMap<string, RootDefinition> = new Map(Object.entries(reads.model.roots));

  function planFor(prepared: PreparedDocument, operation: OperationDefinitionNode, variables: Record<string, unknown>, withKeyCheck: boolean): CachedPlan {
    const memoKey = `${operation.name?.value ?? ''}\u0000${withKeyCheck ? 'k' : 'u'}`;
    const cached = prepared.memo.get(memoKey) as CachedPlan | undefined;
    if (cached) return cached;
    const plan = planOperation(schema, operation, queryType, prepared.fragments, variables);
    const compiledPlan = compilePlan(plan, withKeyCheck);
    if (!plan.variableDependent) prepared.memo.set(memoKey, compiledPlan);
    return compiledPlan;
  }

  function compilePlan(plan: OperationPlan, withKeyCheck: boolean, exclude: ReadonlySet<number> = new Set()): CachedPlan {
    const planned = planReads(plan, roots, exclude);
    return { plan, ...planned, compiled: reads.compile(planned.reads, withKeyCheck) };
  }

  /**
   * Checks one GraphQL request (document, operation, complexity, scope,
   * variables, arguments) and plans it, without touching the database: a
   * request error, or an operation ready to run once its cost is admitted.
   * `context` gives mutations the request id and where to log unexpected errors.
   */
  function prepare(request: GraphQLRequest, caller: Caller, context: MutationRequestContext = NO_REQUEST): RequestErrorOutcome | ReadyOperation {
    const prepared = documents.get(request.query);
    if (prepared.errors.length > 0) {
      const errors = prepared.errors.map((error) => toWireError(error, codeOfValidationError(error)));
      const phase = errors.some((error) => error.extensions.code === 'COMPLEXITY_LIMIT_EXCEEDED') ? 'complexity' : 'validation';
      return requestError(phase, null, errors);
    }
    const operation = selectOperation(prepared, request.operationName);
    if (operation instanceof GraphQLError) return requestError('request', null, [toWireError(operation, 'BAD_REQUEST')]);
    const operationName = operation.name?.value ?? null;
    const rootFields = rootFieldsOf(prepared, operation);
    if (operation.operation === 'subscription' || (operation.operation === 'mutation' && mutations === undefined)) {
      const error = new GraphQLError(`This API does not support ${operation.operation}s here.`, { nodes: operation });
      return requestError('validation', operationName, [toWireError(error, 'GRAPHQL_VALIDATION_FAILED')], rootFields);
    }
    // refused before anything runs, variables included
    if (operation.operation === 'mutation' && caller.scope !== 'read_write') {
      const error = new GraphQLError('This API key can only read: mutations need a key with scope read_write.');
      return requestError('forbidden', operationName, [toWireError(error, 'FORBIDDEN')], rootFields);
    }
    const coerced = coerceVariables(schema, operation, request.variables ?? {});
    if (coerced.errors) {
      return requestError('request', operationName, coerced.errors.map((error) => toWireError(error, 'BAD_USER_INPUT')), rootFields);
    }
    // priced, and refused when too costly, by the document cache: before validation, and again with the
    // variables when they size a list (a metrics series' buckets)
    const cost = documents.price(prepared, operation, coerced.coerced);
    if (cost instanceof GraphQLError) return requestError('complexity', operationName, [toWireError(cost, 'COMPLEXITY_LIMIT_EXCEEDED')], rootFields);
    if (operation.operation === 'mutation') {
      const document = prepared.document;
      invariant(document !== undefined && mutations !== undefined, 'execute-mutation-without-document');
      // no deadline: a write runs to its commit or rollback; PostgreSQL's statement_timeout still bounds each statement
      return { kind: 'ready', operationName, cost, rootFields, run: () => mutations.execute(document, operation, request.variables, caller, context) };
    }
    const ready = planWithArguments(planFor(prepared, operation, coerced.coerced, caller.keyId !== null), coerced.coerced, caller);
    return { kind: 'ready', operationName, cost, rootFields, run: (options = {}) => runPlan(ready, caller, { operationName, cost }, options.deadline) };
  }

  /**
   * Checks each root's argument; a malformed one answers a field error and
   * never reaches the database. Once per cached plan when the arguments are
   * literals (coercion and checks give the same on every request), else on
   * every request.
   */
  function planWithArguments(cached: CachedPlan, variables: Record<string, unknown>, caller: Caller) {
    if (cached.checkedArguments === undefined) {
      const perRequest = cached.plan.variableDependent || rootArgumentsUseVariables(cached.plan);
      cached.checkedArguments = perRequest ? null : checkArguments(cached, variables, caller);
    }
    const checked = cached.checkedArguments ?? checkArguments(cached, variables, caller);
    // runPlan adds this request's errors to the array and sorts it: a copy, so a kept outcome never changes
    return { plan: checked.plan, errors: [...checked.errors], args: checked.args };
  }

  function checkArguments(cached: CachedPlan, variables: Record<string, unknown>, caller: Caller): CheckedPlan {
    const errors: WireError[] = [];
    const values = cached.plan.fields.map((field) => rootArguments(field, roots.get(field.name), variables));
    const invalid = new Set<number>();
    cached.plan.fields.forEach((field, i) => {
      const root = roots.get(field.name);
      if (cached.readIndex[i] === -1 || root === undefined) return;
      const problem = checkRootArguments(field.name, root, values[i] as ArgumentValues, reads.settings);
      if (problem) {
        invalid.add(i);
        errors.push(fieldError(problem.message, 'BAD_USER_INPUT', field, { argument: problem.details.field }));
      }
    });
    const plan = invalid.size > 0 ? compilePlan(cached.plan, caller.keyId !== null, invalid) : cached;
    return { plan, errors, args: values.filter((_, i) => plan.readIndex[i] !== -1) };
  }

  async function runPlan(
    ready: { plan: CachedPlan; errors: WireError[]; args: readonly ArgumentValues[] },
    caller: Caller,
    { operationName, cost }: { readonly operationName: string | null; readonly cost: number },
    deadline: number | undefined,
  ): Promise<ExecutedOutcome> {
    const { plan: cached, errors } = ready;
    const result = await reads.run(cached.compiled, caller, ready.args, deadline);
    const actualCost = actualCostOf(cached, result.roots, ready.args, cost);
    let data = '{';
    cached.plan.fields.forEach((field, i) => {
      let value: string;
      if (field.name === '__typename') {
        value = `"${queryType.name}"`;
      } else {
        const index = cached.readIndex[i] as number;
        value = index === -1 ? 'null' : (result.roots[index] ?? 'null');
        if (index !== -1 && result.roots[index] === null) {
          const root = roots.get(field.name) as RootDefinition;
          if (root.nullAnswer !== undefined) errors.push(fieldError(root.nullAnswer.message, root.nullAnswer.code, field, { argument: root.nullAnswer.argument }));
          else errors.push(fieldError(`Not found, or not accessible with this API key: ${field.name}(${namingArguments(root)}).`, 'UNAUTHORIZED', field));
        }
      }
      data += `${i === 0 ? '' : ','}"${field.key}":${value}`;
    });
    data += '}';
    const body = errors.length > 0 ? `{"errors":${JSON.stringify(sortByPath(errors, cached.plan))},"data":${data}}` : `{"data":${data}}`;
    const errorCodes = errors.map((error) => error.extensions.code);
    return { kind: 'executed', body, operationName, keyChecked: caller.keyId !== null, statements: 1, actualCost, errorCodes };
  }

  /**
   * What an answer actually cost, at most `requested` (the static cost):
   * `requested` itself when the plan selects no list, without a look at the
   * answer; else counted from the roots' JSON (graphql/actual-cost.ts).
   */
  function actualCostOf(cached: CachedPlan, answers: readonly (string | null)[], args: readonly ArgumentValues[], requested: number): number {
    const costPlan = (cached.costPlan ??= buildCostPlan(schema, cached.plan));
    if (!costPlan.counted) return requested;
    const byField = cached.readIndex.map((index) => (index === -1 ? null : (answers[index] ?? null)));
    const argsByField = cached.readIndex.map((index) => (index === -1 ? undefined : args[index]));
    return Math.min(requested, measureActualCost(costPlan, byField, argsByField));
  }

  return { prepare };
}

function requestError(
  phase: RequestErrorOutcome['phase'],
  operationName: string | null,
  errors: readonly WireError[],
  rootFields: readonly string[] = [],
): RequestErrorOutcome {
  return { kind: 'request-error', phase, operationName, errors, rootFields };
}

/**
 * The names of the root fields an operation names, in first-seen order,
 * each once, fragments spread (a fragment spread twice is read once) and
 * @skip/@include ignored: what the document asks, whatever its variables.
 * Kept with the document per operation, so a request reads it from there.
 */
function rootFieldsOf(prepared: PreparedDocument, operation: OperationDefinitionNode): readonly string[] {
  const memoKey = `\u0001roots\u0000${operation.name?.value ?? ''}`;
  const kept = prepared.memo.get(memoKey) as readonly string[] | undefined;
  if (kept) return kept;
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (selections: OperationDefinitionNode['selectionSet']['selections']): void => {
    for (const selection of selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet.selections);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = prepared.fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet.selections);
      }
    }
  };
  visit(operation.selectionSet.selections);
  const rootFields = Object.freeze([...names]);
  prepared.memo.set(memoKey, rootFields);
  return rootFields;
}

export type Executor = ReturnType<typeof createExecutor>;

const NO_ARGUMENTS: ArgumentValues = Object.freeze({});

/** A root field's argument values, coerced, with the SDL's defaults. */
function rootArguments(field: PlannedRootField, root: RootDefinition | undefined, variables: Record<string, unknown>): ArgumentValues {
  if (!field.definition || root === undefined) return NO_ARGUMENTS;
  const node = field.nodes[0] as FieldNode;
  // the usual `virtualDevice(UUID: $id)`: a variable's coerced value is the argument's, as getArgumentValues finds it
  const only = node.arguments?.length === 1 && field.definition.args.length === 1 ? node.arguments[0] : undefined;
  if (only?.value.kind === Kind.VARIABLE) {
    const variable = only.value.name.value;
    const value = Object.hasOwn(variables, variable) ? variables[variable] : undefined;
    if (value !== undefined && value !== null) return { [only.name.value]: value };
  }
  return getArgumentValues(field.definition, node, variables);
}

/** True when an argument of a root field refers to a variable, at any depth of its value. */
function rootArgumentsUseVariables(plan: OperationPlan): boolean {
  return plan.fields.some((field) => field.nodes.some((node) => node.arguments?.some((argument) => usesVariable(argument.value))));
}

function selectOperation(prepared: PreparedDocument, name: string | null): OperationDefinitionNode | GraphQLError {
  if (name !== null) {
    return prepared.operations.get(name) ?? new GraphQLError(`Unknown operation named "${name}".`);
  }
  if (prepared.operations.size === 1) return prepared.operations.values().next().value as OperationDefinitionNode;
  if (prepared.operations.size === 0) return new GraphQLError('The document contains no operation.');
  return new GraphQLError('The document contains several operations: name the one to run in "operationName".');
}

function fieldError(
  message: string,
  code: ErrorCode,
  field: PlannedRootField,
  extra: Record<string, unknown> = {},
): WireError {
  return toWireError(new GraphQLError(message, { nodes: field.nodes[0] ?? null, path: [field.key], extensions: extra }), code);
}

function codeOfValidationError(error: GraphQLError): ErrorCode {
  const code = error.extensions?.code;
  return code === 'BAD_USER_INPUT' || code === 'COMPLEXITY_LIMIT_EXCEEDED' ? code : 'GRAPHQL_VALIDATION_FAILED';
}

function sortByPath(errors: WireError[], plan: OperationPlan): WireError[] {
  const order = new Map(plan.fields.map((field, i) => [field.key, i]));
  return errors.sort((a, b) => (order.get(String(a.path?.[0])) ?? 0) - (order.get(String(b.path?.[0])) ?? 0));
}
