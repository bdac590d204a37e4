import type { FastifyBaseLogger } from 'fastify';
import { AppError, ERROR_CODES } from '../../kernel/errors.js';
import type { ErrorCode } from '../../kernel/errors.js';
import { createAdmission } from '../admission.js';
import type { Admission } from '../admission.js';
import { JSON_TYPE, errorAnswer } from '../answer.js';
import type { Answer } from '../answer.js';
import { UNAUTHORIZED } from '../meter-answers.js';
import type { RequestContext } from '../request-context.js';
import type { ApiKeyService } from '../../features/api-key/api-key.service.js';
import { httpDate, secondsUntil, wholePoints } from '../../platform/limits/limits.headers.js';
import type { LimitState } from '../../platform/limits/limits.headers.js';
import type { LimitsService } from '../../platform/limits/limits.service.js';
import type { Executor, RequestErrorOutcome } from '../../engine/execute.js';
import { contentTypeOf, negotiate } from './media-type.js';
import type { MediaType } from './media-type.js';
import { readRequestBody } from './request-body.js';

/** What the GraphQL endpoint is built from, whichever server answers it (route.ts or endpoint.ts). */
export interface GraphQLRouteDeps {
  readonly executor: Executor;
  /** The key, its scope and the request window (createGraphQLAdmission). */
  readonly admission: Admission;
  readonly limits: LimitsService;
  readonly schemaText: string;
  readonly requestTimeoutMs: number;
  /** Told of every request a limit refuses, for metrics. */
  readonly onLimited?: (limit: 'requests' | 'complexity') => void;
}

/** The GraphQL route's admission (http/admission.ts): any key but an ingest key; its compiled reads check revocation themselves. */
export function createGraphQLAdmission(apiKeys: ApiKeyService, limits: LimitsService, onLimited?: (limit: 'requests') => void): Admission {
  return createAdmission({
    apiKeys,
    limits,
    unit: 'requests',
    refuseScope: (scope) => (scope === 'ingest' ? INGEST_KEY_FORBIDDEN : undefined),
    confirmCachedKey: false,
    onLimited: () => onLimited?.('requests'),
  });
}

/**
 * The first step, before the body is read: starts the request's clock, then
 * admits the request (key, scope, request window). An answer when the
 * request ends here (401, 403, 429), undefined when it goes on.
 */
export function admit(deps: GraphQLRouteDeps, authorization: string | undefined, context: RequestContext): Promise<Answer | undefined> {
  context.deadline = performance.now() + deps.requestTimeoutMs;
  return deps.admission.admit(authorization, context);
}

/** The answer to an ingest key on the GraphQL API: it may only post device reports. */
const INGEST_KEY_FORBIDDEN: Answer = errorAnswer(ERROR_CODES.FORBIDDEN, { 'content-type': JSON_TYPE }, [
  {
    message:
      'This API key has scope ingest: it can only post device reports to /api/v1/reports. Use a read or read_write key for the GraphQL API.',
    extensions: { code: 'FORBIDDEN' },
  },
]);

/** What the second step reads of the request besides its context. */
export interface GraphQLHttpRequest {
  readonly accept: string | undefined;
  /** The parsed JSON body. */
  readonly body: unknown;
  readonly requestId: string;
  readonly log: FastifyBaseLogger;
}

/**
 * The second step, with the parsed body: checks and prices the operation,
 * charges the budget its requested cost, runs it, and gives back what its
 * answer did not use (docs/limits.md).
 */
export async function answerGraphQL(deps: GraphQLRouteDeps, context: RequestContext, request: GraphQLHttpRequest): Promise<Answer> {
  const mediaType = negotiate(request.accept);
  if (mediaType === undefined) {
    throw new AppError('NOT_ACCEPTABLE', 'Accept must allow application/json or application/graphql-response+json.');
  }
  const { caller, limits: admitted } = context;
  if (!caller || !admitted) throw new AppError('UNAUTHENTICATED', 'No API key.');
  const type = contentTypeOf(mediaType);
  const { requestId, log } = request;
  const graphQLRequest = readRequestBody(request.body);
  const operation = deps.executor.prepare(graphQLRequest, caller, {
    requestId,
    onUnexpectedError: (error) => log.error({ err: error, requestId }, 'unexpected error in a mutation'),
  });
  context.operationName = operation.operationName;
  context.rootFields = operation.rootFields;
  if (operation.kind === 'request-error') {
    const status = requestErrorStatus(operation.phase, mediaType);
    return answerWithoutRunning(deps, context, errorAnswer(status, { 'content-type': type }, operation.errors));
  }
  const charge = await deps.limits.chargeOperation(caller, admitted, operation.cost);
  context.limits = charge.state;
  if (!charge.allowed) {
    deps.onLimited?.('complexity');
    return answerWithoutRunning(deps, context, throttled(type, operation.cost, charge.state, charge.retryAt));
  }
  const deadline = context.deadline;
  const outcome = await operation.run(deadline === undefined ? {} : { deadline });
  context.statements += outcome.statements;
  const settled = await deps.limits.settleOperation(caller, charge.state, outcome.actualCost ?? operation.cost);
  context.limits = settled;
  context.cost = settled.budget.cost;
  const body = graphQLRequest.extensions?.cost === true ? withCostExtension(outcome.body, operation.cost, settled) : outcome.body;
  const answer: Answer = { status: 200, headers: { 'content-type': type }, body, ...(outcome.errorCodes.length > 0 ? { errorCodes: outcome.errorCodes } : {}) };
  // e.g. `mutation { __typename }`: nothing that ran looked at the key
  return outcome.keyChecked ? answer : answerWithoutRunning(deps, context, answer);
}

/**
 * The body with `extensions.cost` added, for a request whose `extensions`
 * ask for it with `"cost": true`: what the operation requested, what its
 * answer actually cost (charged), and the whole points left in the budget.
 */
function withCostExtension(body: string, requested: number, state: LimitState): string {
  const cost = { requested, actual: state.budget.cost, remaining: wholePoints(state.budget.level) };
  // every body the executor writes is one JSON object: `{"data":…}` or `{"errors":…,"data":…}`
  return `${body.slice(0, -1)},"extensions":${JSON.stringify({ cost })}}`;
}

/** The code that stands for each kind of request error; its status is the registry's. */
const PHASE_CODES = {
  validation: 'GRAPHQL_VALIDATION_FAILED',
  request: 'BAD_REQUEST',
  complexity: 'COMPLEXITY_LIMIT_EXCEEDED',
  forbidden: 'FORBIDDEN',
} as const satisfies Record<RequestErrorOutcome['phase'], ErrorCode>;

/** The status of a request stopped before anything ran. */
function requestErrorStatus(phase: RequestErrorOutcome['phase'], mediaType: MediaType): number {
  // GraphQL over HTTP: answered as application/graphql-response+json, a document that fails validation is a bad request
  const code = phase === 'validation' && mediaType !== 'application/json' ? 'BAD_REQUEST' : PHASE_CODES[phase];
  return ERROR_CODES[code];
}

/** Answers a request that ran no statement; nothing confirmed the key is still active then, so ask once. */
async function answerWithoutRunning(deps: GraphQLRouteDeps, context: RequestContext, answer: Answer): Promise<Answer> {
  return (await deps.admission.keyStillValid(context)) ? answer : UNAUTHORIZED;
}

/**
 * Meter's documented answer when the budget is spent, word for word, so
 * clients that match on it back off here too; what it costs and when to
 * retry are in `extensions` and Retry-After.
 */
export const THROTTLED_MESSAGE = 'Complexity budget exhausted. Try a less complex query or wait for your budget to restore.';

/** THROTTLED: the key's complexity budget is below the one point that admits an operation (limits.arithmetic.ts). */
function throttled(type: string, cost: number, state: LimitState, retryAt: number): Answer {
  const remaining = wholePoints(state.budget.level);
  const retryAfterSeconds = secondsUntil(retryAt, state.now);
  return errorAnswer(ERROR_CODES.THROTTLED, { 'Retry-After': httpDate(retryAt), 'content-type': type }, [
    {
      message: THROTTLED_MESSAGE,
      extensions: { code: 'THROTTLED', cost, remaining, retryAfterSeconds },
    },
  ]);
}
