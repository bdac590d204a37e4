import { Kind, getVariableValues, isScalarType } from 'graphql';
import type { GraphQLError, GraphQLScalarType, GraphQLSchema, OperationDefinitionNode } from 'graphql';

/** What graphql-js's getVariableValues returns. */
export type CoercedVariables = { readonly coerced: Record<string, unknown>; readonly errors?: never } | { readonly errors: readonly GraphQLError[]; readonly coerced?: never };

/** A variable of a scalar type, without a default value. */
interface ScalarVariable {
  readonly name: string;
  readonly type: GraphQLScalarType;
  readonly nonNull: boolean;
}

/** Per operation: its variables when all are scalars without defaults, null when any is not. */
const scalarVariables = new WeakMap<OperationDefinitionNode, readonly ScalarVariable[] | null>();

/**
 * Coerces an operation's variables, with exactly the result of graphql-js's
 * getVariableValues. The variables of the documents integrations send are
 * almost always scalars without defaults (`$id: UUID!`); those are coerced
 * here directly, each with its type's parseValue, without the general
 * machinery (about 2 µs a request). Anything else, and every input that
 * does not coerce cleanly, goes to getVariableValues, so errors are its own.
 */
export function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Readonly<Record<string, unknown>>): CoercedVariables {
  let variables = scalarVariables.get(operation);
  if (variables === undefined) {
    variables = scalarVariablesOf(schema, operation);
    scalarVariables.set(operation, variables);
  }
  const coerced = variables === null ? undefined : coerceScalars(variables, inputs);
  return coerced === undefined ? getVariableValues(schema, operation.variableDefinitions ?? [], inputs, { maxErrors: 20 }) : { coerced };
}

function scalarVariablesOf(schema: GraphQLSchema, operation: OperationDefinitionNode): readonly ScalarVariable[] | null {
  const variables: ScalarVariable[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue !== undefined) return null;
    const nonNull = definition.type.kind === Kind.NON_NULL_TYPE;
    const named = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
    if (named.kind !== Kind.NAMED_TYPE) return null;
    const type = schema.getType(named.name.value);
    if (!isScalarType(type)) return null;
    variables.push({ name: definition.variable.name.value, type, nonNull });
  }
  return variables;
}

/** The coerced values, or undefined when a value is missing, null where it may not be, or rejected by its type. */
function coerceScalars(variables: readonly ScalarVariable[], inputs: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const coerced: Record<string, unknown> = {};
  for (const { name, type, nonNull } of variables) {
    if (!Object.hasOwn(inputs, name)) {
      if (nonNull) return undefined;
      continue;
    }
    const value = inputs[name];
    if (value === null || value === undefined) {
      if (nonNull) return undefined;
      coerced[name] = null;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = type.parseValue(value);
    } catch {
      return undefined;
    }
    if (parsed === undefined) return undefined;
    coerced[name] = parsed;
  }
  return coerced;
}
