import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors.js';
import type { ApiKeyService } from '../modules/api-key/api-key.service.js';
import { httpDate, limitHeaders, secondsUntil, wholePoints } from '../modules/limits/limits.headers.js';
import type { LimitState } from '../modules/limits/limits.headers.js';
import type { LimitsService } from '../modules/limits/limits.service.js';
import type { Executor, GraphQLRequest, WireError } from './execute.js';

export const GRAPHQL_PATH = '/api/v1/graphql';
/** Requests up to this size are read; larger ones get 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const SCHEMA_PATH = '/api/v1/schema.graphql';

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

/** The body of a 401, as the Meter API sends it. */
export const UNAUTHORIZED_BODY = JSON.stringify({
  title: 'Unauthorized. Please include your API credentials',
  id: 'unauthorized',
  status: 401,
});

type MediaType = 'application/json' | 'application/graphql-response+json';

/** The Meter-compatible 401. */
export const UNAUTHORIZED: Answer = {
  status: 401,
  headers: { 'www-authenticate': 'Bearer', 'content-type': JSON_TYPE },
  body: UNAUTHORIZED_BODY,
};

/** Sends the Meter-compatible 401. */
export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return sendAnswer(reply, UNAUTHORIZED);
}

/** A GraphQL-shaped error body for an error that ends the request: `{"errors":[…],"data":null}`. */
export function errorBody(errors: readonly WireError[]): string {
  return `{"errors":${JSON.stringify(errors)},"data":null}`;
}

/**
 * Registers POST /api/v1/graphql (and 405 for every other method on it) and
 * the published schema. Requests with a JSON body reach the same steps on
 * bare node:http instead (endpoint.ts); this route serves the rest (a query
 * string, another media type). The API key and its request limit are checked
 * first (in onRequest here), before the body is read or parsed, so an unauthenticated flood
 * costs a header check and at most one indexed lookup, and a flood over the
 * limit one limit check. Every authenticated response carries the limit
 * headers; an operation's cost is charged just before it runs.
 */
export function registerGraphQLRoutes(
  app: FastifyInstance,
  deps: GraphQLRouteDeps,
): void {
  const { limits, schemaText } = deps;

  app.get(SCHEMA_PATH, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(schemaText));

  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: GRAPHQL_PATH,
    exposeHeadRoute: false,
    handler: async (request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .type(JSON_TYPE)
        .send(
          errorBody([
            {
              message: `${request.method} is not allowed here: send the GraphQL request with POST.`,
              extensions: { code: 'METHOD_NOT_ALLOWED' },
            },
          ]),
        ),
  });

  app.route({
    method: 'POST',
    url: GRAPHQL_PATH,
    onRequest: async (request, reply) => {
      const refused = await admit(deps, request.headers.authorization, request.netgraph);
      return refused === undefined ? undefined : sendAnswer(reply, refused);
    },
    onSend: async (request, reply, payload) => {
      const state = request.netgraph.limits;
      if (state !== undefined && reply.statusCode !== 401) reply.headers(limitHeaders(state, limits.policies));
      return payload;
    },
    handler: async (request, reply) =>
      sendAnswer(
        reply,
        await answerGraphQL(deps, request.netgraph, { accept: request.headers.accept, body: request.body, requestId: request.id, log: request.log }),
      ),
  });
}

/** A whole response of the GraphQL endpoint, whichever server sends it (Fastify's route or the bare node:http one). */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends an answer through Fastify. */
export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

/** What the GraphQL route is built from. */
export interface GraphQLRouteDeps {
  readonly executor: Executor;
  readonly apiKeys: ApiKeyService;
  readonly limits: LimitsService;
  readonly schemaText: string;
  readonly requestTimeoutMs: number;
  /** Told of every request a limit refuses, for metrics. */
  readonly onLimited?: (limit: 'requests' | 'complexity') => void;
}

/**
 * The first step, before the body is read: starts the request's clock,
 * authenticates, and counts the request against the key's window. An answer
 * when the request ends here (401, 429), undefined when it goes on.
 */
export async function admit(deps: GraphQLRouteDeps, authorization: string | undefined, context: RequestContext): Promise<Answer | undefined> {
  context.deadline = performance.now() + deps.requestTimeoutMs;
  const token = bearerToken(authorization);
  const lookups = { count: 0 };
  const caller = token === undefined ? undefined : await deps.apiKeys.authenticate(token, lookups);
  context.statements += lookups.count;
  if (caller === undefined) return UNAUTHORIZED;
  context.caller = caller;
  if (caller.scope === 'ingest') return INGEST_KEY_FORBIDDEN;
  // counted before the body is parsed, so a flood over the limit costs no parsing
  const decision = await deps.limits.admitRequest(caller);
  context.limits = decision.state;
  if (!decision.allowed) {
    deps.onLimited?.('requests');
    return tooManyRequests(decision.retryAt);
  }
  return undefined;
}

/** The answer to an ingest key on the GraphQL API: it may only post device reports. */
const INGEST_KEY_FORBIDDEN: Answer = {
  status: 403,
  headers: { 'content-type': JSON_TYPE },
  body: errorBody([
    { message: 'This API key has scope ingest: it can only post device reports to /api/v1/reports. Use a read or read_write key for the GraphQL API.', extensions: { code: 'FORBIDDEN' } },
  ]),
};

/** What the second step reads of the request besides its context. */
export interface GraphQLHttpRequest {
  readonly accept: string | undefined;
  /** The parsed JSON body. */
  readonly body: unknown;
  readonly requestId: string;
  readonly log: FastifyBaseLogger;
}

/** The second step, with the parsed body: checks and prices the operation, charges the budget, runs it. */
export async function answerGraphQL(deps: GraphQLRouteDeps, context: RequestContext, request: GraphQLHttpRequest): Promise<Answer> {
  const mediaType = negotiate(request.accept);
  if (mediaType === undefined) {
    throw new AppError('NOT_ACCEPTABLE', 'Accept must allow application/json or application/graphql-response+json.');
  }
  const { caller, limits: admitted } = context;
  if (!caller || !admitted) throw new AppError('UNAUTHENTICATED', 'No API key.');
  const type = mediaType === 'application/json' ? JSON_TYPE : GRAPHQL_RESPONSE_TYPE;
  const { requestId, log } = request;
  const operation = deps.executor.prepare(readRequestBody(request.body), caller, {
    requestId,
    onUnexpectedError: (error) => log.error({ err: error, requestId }, 'unexpected error in a mutation'),
  });
  context.operationName = operation.operationName;
  if (operation.kind === 'request-error') {
    const status =
      operation.phase === 'forbidden'
        ? 403
        : operation.phase === 'complexity'
          ? 422
          : operation.phase === 'request' || mediaType !== 'application/json'
            ? 400
            : 422;
    return answerWithoutRunning(deps, context, { status, headers: { 'content-type': type }, body: errorBody(operation.errors) });
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
  const answer: Answer = { status: 200, headers: { 'content-type': type }, body: outcome.body };
  // e.g. `mutation { __typename }`: nothing that ran looked at the key
  return outcome.keyChecked ? answer : answerWithoutRunning(deps, context, answer);
}

/** Answers a request that ran no statement; nothing confirmed the key is still active then, so ask once. */
async function answerWithoutRunning(deps: GraphQLRouteDeps, context: RequestContext, answer: Answer): Promise<Answer> {
  const caller = context.caller;
  context.statements += 1;
  if (caller?.keyId != null && !(await deps.apiKeys.isActive(caller.keyId))) {
    deps.apiKeys.forget(caller.keyId);
    return UNAUTHORIZED;
  }
  return answer;
}

/** The body of a 429 for the request rate limit, as the Meter API sends it. */
export const TOO_MANY_REQUESTS_BODY = JSON.stringify({
  title: 'Too many requests',
  id: 'too_many_requests',
  detail: 'Too many requests',
  status: 429,
});

/** The Meter-compatible 429 for a key over its request limit. */
function tooManyRequests(retryAt: number): Answer {
  return { status: 429, headers: { 'retry-after': httpDate(retryAt), 'content-type': JSON_TYPE }, body: TOO_MANY_REQUESTS_BODY };
}

/** THROTTLED: the key's complexity budget does not hold this operation's cost yet. */
function throttled(type: string, cost: number, state: LimitState, retryAt: number): Answer {
  const remaining = wholePoints(state.budget.level);
  const retryAfterSeconds = secondsUntil(retryAt, state.now);
  return {
    status: 429,
    headers: { 'retry-after': httpDate(retryAt), 'content-type': type },
    body: errorBody([
      {
        message: `This operation costs ${cost} complexity points and the budget of this API key holds ${remaining}; retry after ${httpDate(retryAt)}, or send a cheaper operation.`,
        extensions: { code: 'THROTTLED', cost, remaining, retryAfterSeconds },
      },
    ]),
  };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1];
}

/**
 * Picks the response media type from Accept: application/graphql-response+json
 * when the client prefers it, application/json otherwise (also for a missing
 * Accept, `*\/*` and `application/*`); undefined when neither is acceptable.
 */
export function negotiate(accept: string | undefined): MediaType | undefined {
  if (accept === undefined || accept.trim() === '') return 'application/json';
  let best: { type: MediaType; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.split(';');
    const type = rawType?.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (!(q > 0)) continue;
    const candidate: MediaType | undefined =
      type === 'application/graphql-response+json'
        ? 'application/graphql-response+json'
        : type === 'application/json' || type === '*/*' || type === 'application/*'
          ? 'application/json'
          : undefined;
    if (candidate && (!best || q > best.q)) best = { type: candidate, q };
  }
  return best?.type;
}

/** Checks the JSON body's shape; BAD_REQUEST saying what is wrong. */
function readRequestBody(body: unknown): GraphQLRequest {
  if (Array.isArray(body)) {
    throw new AppError('BAD_REQUEST', 'Batched requests (a JSON array) are not supported: send one operation per request.');
  }
  if (typeof body !== 'object' || body === null) {
    throw new AppError('BAD_REQUEST', 'The request body must be a JSON object with a "query" string.');
  }
  const { query, variables, operationName, extensions } = body as Record<string, unknown>;
  if (query === undefined || query === null) {
    throw new AppError('BAD_REQUEST', 'The request body has no "query": send the GraphQL document as a string.');
  }
  if (typeof query !== 'string') throw new AppError('BAD_REQUEST', '"query" must be a string holding the GraphQL document.');
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw new AppError('BAD_REQUEST', '"variables" must be a JSON object (or null).');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw new AppError('BAD_REQUEST', '"operationName" must be a string (or null).');
  }
  if (extensions !== undefined && extensions !== null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    throw new AppError('BAD_REQUEST', '"extensions" must be a JSON object (or null).');
  }
  return {
    query,
    variables: (variables as Record<string, unknown> | null | undefined) ?? null,
    operationName: (operationName as string | null | undefined) ?? null,
  };
}

/** Where answerForError logs an unexpected error, and how it classifies the store's errors. */
export interface ErrorContext {
  readonly requestId: string;
  readonly log: FastifyBaseLogger;
  /** The store's mapping of driver errors (database unavailable, statement timeout) to AppErrors. */
  readonly classify: (error: unknown) => unknown;
}

/**
 * The answer to an error a request ended with, for every route of the app:
 * AppErrors and Fastify's own client errors in the documented shape, anything
 * else a masked 500 (logged with the request id, which the body repeats).
 */
export function answerForError(rawError: unknown, context: ErrorContext): Answer {
  const error = context.classify(rawError);
  if (isAppError(error, 'UNAUTHENTICATED')) return UNAUTHORIZED;
  // a thrown non-object (`throw undefined`) is as unexpected as any other error
  const appError = isAppError(error) ? error : typeof rawError === 'object' && rawError !== null ? fromFastifyError(rawError as FastifyError) : undefined;
  if (appError) {
    const headers: Record<string, string> = { 'content-type': JSON_TYPE };
    if (appError.code === 'METHOD_NOT_ALLOWED') headers.allow = 'POST';
    if (appError.code === 'SERVICE_UNAVAILABLE') headers['retry-after'] = '1';
    return {
      status: appError.status === 200 ? 400 : appError.status,
      headers,
      body: errorBody([{ message: appError.message, extensions: { code: appError.code, ...publicDetails(appError) } }]),
    };
  }
  const { requestId } = context;
  context.log.error({ err: rawError, requestId }, 'unexpected error');
  return {
    status: 500,
    headers: { 'content-type': JSON_TYPE },
    body: errorBody([{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } }]),
  };
}

/** Fastify's own client errors (body parsing, size, media type) as AppErrors; undefined for anything else. */
function fromFastifyError(error: FastifyError): AppError | undefined {
  const status = error.statusCode ?? 500;
  if (status >= 500) return undefined;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${BODY_LIMIT_BYTES} bytes (1 MiB).`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The request body is empty: send a JSON object with a "query" string.');
    default:
      if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
      if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
      return new AppError('BAD_REQUEST', `The request body is not valid JSON: ${error.message}`);
  }
}

function publicDetails(error: AppError): Record<string, unknown> {
  const { field, ...rest } = error.details;
  return field === undefined ? rest : { field, ...rest };
}

declare module 'fastify' {
  interface FastifyRequest {
    netgraph: RequestContext;
  }
}

/** What the request log line reports about a request, and what its later hooks need. */
export interface RequestContext {
  caller?: import('../modules/api-key/api-key.service.js').Caller;
  operationName: string | null;
  statements: number;
  /** The caller's limits as this response reports them. */
  limits?: LimitState;
  /** When the request times out, as a performance.now() time. */
  deadline?: number;
}

export type { FastifyRequest };
