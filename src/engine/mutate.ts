import { GraphQLError, execute, getNamedType, isObjectType } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, GraphQLFieldResolver, GraphQLResolveInfo, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { AppError, INTERNAL, KEY_NOT_VALID, invariant, isAppError } from '../kernel/errors.js';
import type { Caller } from '../kernel/caller.js';
import type { ReadService } from './read.service.js';
import type { MutationPayload, ObjectReference } from './read.model.js';
import type { Services } from '../services.js';
import { planSelection } from './plan.js';
import { mutationResolversOf } from './schema.js';
import { toWireError } from './wire.js';
import type { ExecutedOutcome, WireError } from './wire.js';

/** What a mutation request needs from the HTTP layer: its id, and where unexpected errors are logged. */
export interface MutationRequestContext {
  readonly requestId: string;
  /** Logs an error that is not an AppError; the client sees only INTERNAL_SERVER_ERROR and the request id. */
  onUnexpectedError(error: unknown): void;
}

/** A resolver's payload as the source of the payload's fields; the class tells them from the objects read back below. */
class PayloadSource {
  constructor(readonly payload: MutationPayload) {}
}

interface ResolverContext {
  readonly caller: Caller;
  /** Transactions and read-back statements run, for the request log. */
  statements: number;
}

/**
 * Runs mutation operations with graphql-js `execute()`, whose root fields run
 * serially as the spec requires. Each root field calls one service; each
 * object in its payload is read back through the compiled read path (one
 * statement, scoped by company like every read). The query path never comes
 * here.
 */
export function createMutationExecutor(deps: { schema: GraphQLSchema; reads: ReadService; services: Services }) {
  const { schema, reads, services } = deps;
  const mutationType = schema.getMutationType();
  invariant(mutationType, 'mutate-no-mutation-type');
  const resolvers = mutationResolversOf(schema);

  async function readBack(reference: ObjectReference, info: GraphQLResolveInfo, context: ResolverContext): Promise<unknown> {
    const type = getNamedType(info.returnType);
    invariant(isObjectType(type), `mutate-payload-not-object:${info.fieldName}`);
    const fragments = new Map<string, FragmentDefinitionNode>(Object.entries(info.fragments));
    const selection = planSelection(schema, type, info.fieldNodes, fragments, info.variableValues);
    context.statements += 1;
    const json = await reads.readObject(reference.root, selection, context.caller, reference.arg);
    // gone again already (another request deleted it after this write committed): say so as reads do
    if (json === null) throw new AppError('UNAUTHORIZED', `Not found, or not accessible with this API key: ${info.fieldName}.`);
    return JSON.parse(json) as unknown;
  }

  /** Mutation fields call their resolver; payload fields give values or read back; below that, the compiled JSON is keyed by response key. */
  const fieldResolver: GraphQLFieldResolver<unknown, ResolverContext> = (source, args, context, info) => {
    if (info.parentType === mutationType) {
      const resolve = Object.hasOwn(resolvers, info.fieldName) ? resolvers[info.fieldName] : undefined;
      invariant(resolve !== undefined, `mutate-no-resolver:${info.fieldName}`);
      context.statements += 1;
      return resolve(services, context.caller, args.input as Record<string, unknown>).then((payload) => new PayloadSource(payload));
    }
    if (source instanceof PayloadSource) {
      const { values = {}, objects = {} } = source.payload;
      if (!Object.hasOwn(objects, info.fieldName)) return values[info.fieldName];
      const reference = objects[info.fieldName];
      return reference ? readBack(reference, info, context) : null;
    }
    return (source as Record<string, unknown> | null | undefined)?.[info.path.key as string];
  };

  /**
   * Executes a validated mutation operation for a caller allowed to write.
   * Status 200 whenever it ran: each failed field is null with its error.
   * Throws UNAUTHENTICATED when the key turned out revoked and nothing ran.
   */
  async function executeMutation(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | null,
    caller: Caller,
    request: MutationRequestContext,
  ): Promise<ExecutedOutcome> {
    const context: ResolverContext = { caller, statements: 0 };
    const result = await execute({
      schema,
      document,
      operationName: operation.name?.value ?? null,
      variableValues: variables,
      contextValue: context,
      fieldResolver,
    });
    const operationName = operation.name?.value ?? null;
    // execute() answers no data only for problems the executor has ruled out already (operation, variables)
    if (!result.data) throw new AppError('BAD_REQUEST', result.errors?.[0]?.message ?? 'The mutation could not run.');
    const data = result.data;
    const failures = result.errors ?? [];
    if (failures.some((e) => isAppError(e.originalError, 'UNAUTHENTICATED')) && Object.values(data).every((v) => v === null)) {
      throw KEY_NOT_VALID.create();
    }
    const errors = failures.map((error) => wireErrorOf(error, request));
    const body = errors.length > 0 ? `{"errors":${JSON.stringify(errors)},"data":${JSON.stringify(data)}}` : `{"data":${JSON.stringify(data)}}`;
    const errorCodes = errors.map((error) => error.extensions.code);
    return { kind: 'executed', body, operationName, keyChecked: context.statements > 0 || caller.keyId === null, statements: context.statements, errorCodes };
  }

  return { execute: executeMutation };
}

export type MutationExecutor = ReturnType<typeof createMutationExecutor>;

/**
 * An error of one mutation field on the wire: an AppError with its code and
 * the input field it names (`input.slug`), anything else masked.
 */
function wireErrorOf(error: GraphQLError, request: MutationRequestContext): WireError {
  const original = error.originalError;
  const at = { nodes: error.nodes ?? null, path: error.path ?? null };
  if (isAppError(original)) {
    const { field, ...rest } = original.details;
    const extensions = field === undefined ? rest : { field: field === '' ? 'input' : `input.${field}`, ...rest };
    return toWireError(new GraphQLError(original.message, { ...at, extensions }), original.code);
  }
  if (original === undefined) return toWireError(error, 'BAD_USER_INPUT');
  request.onUnexpectedError(original);
  return toWireError(new GraphQLError(INTERNAL.message, { ...at, extensions: { requestId: request.requestId } }), 'INTERNAL_SERVER_ERROR');
}
