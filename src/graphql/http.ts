import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ApiKeyService } from '../modules/api-key/api-key.service.js';
import { httpDate, limitHeaders, secondsUntil, wholePoints } from '../modules/limits/limits.headers.js';
import type { LimitState } from '../modules/limits/limits.headers.js';
import type { LimitsService } from '../modules/limits/limits.service.js';
import type { Executor, GraphQLRequest, WireError } from './execute.js';

export const GRAPHQL_PATH = '/api/v1/graphql';
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

/** Sends the Meter-compatible 401. */
export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).header('www-authenticate', 'Bearer').type(JSON_TYPE).send(UNAUTHORIZED_BODY);
}

/** A GraphQL-shaped error body for an error that ends the request: `{"errors":[…],"data":null}`. */
export function errorBody(errors: readonly WireError[]): string {
  return `{"errors":${JSON.stringify(errors)},"data":null}`;
}

/**
 * Registers POST /api/v1/graphql (and 405 for every other method on it) and
 * the published schema. The API key and its request limit are checked in
 * onRequest, before the body is read or parsed, so an unauthenticated flood
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
    onRequest: async (request, reply) => admit(deps, request, reply),
    onSend: async (request, reply, payload) => {
      const state = request.netgraph.limits;
      if (state !== undefined && reply.statusCode !== 401) reply.headers(limitHeaders(state, limits.policies));
      return payload;
    },
    handler: async (request, reply) => handleGraphQL(deps, request, reply),
  });
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

/** onRequest: starts the request's clock, authenticates, and counts the request against the key's window. */
async function admit(deps: GraphQLRouteDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  request.netgraph.deadline = performance.now() + deps.requestTimeoutMs;
  const token = bearerToken(request.headers.authorization);
  const lookups = { count: 0 };
  const caller = token === undefined ? undefined : await deps.apiKeys.authenticate(token, lookups);
  request.netgraph.statements += lookups.count;
  if (caller === undefined) return sendUnauthorized(reply);
  request.netgraph.caller = caller;
  // counted before the body is parsed, so a flood over the limit costs no parsing
  const decision = await deps.limits.admitRequest(caller);
  request.netgraph.limits = decision.state;
  if (!decision.allowed) {
    deps.onLimited?.('requests');
    return sendTooManyRequests(reply, decision.retryAt);
  }
  return undefined;
}

/** The handler: checks and prices the operation, charges the budget, runs it. */
async function handleGraphQL(deps: GraphQLRouteDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const mediaType = negotiate(request.headers.accept);
  if (mediaType === undefined) {
    throw new AppError('NOT_ACCEPTABLE', 'Accept must allow application/json or application/graphql-response+json.');
  }
  const { caller, limits: admitted } = request.netgraph;
  if (!caller || !admitted) throw new AppError('UNAUTHENTICATED', 'No API key.');
  const type = mediaType === 'application/json' ? JSON_TYPE : GRAPHQL_RESPONSE_TYPE;
  const operation = deps.executor.prepare(readRequestBody(request.body), caller, {
    requestId: request.id,
    onUnexpectedError: (error) => request.log.error({ err: error, requestId: request.id }, 'unexpected error in a mutation'),
  });
  request.netgraph.operationName = operation.operationName;
  if (operation.kind === 'request-error') {
    const status =
      operation.phase === 'forbidden'
        ? 403
        : operation.phase === 'complexity'
          ? 422
          : operation.phase === 'request' || mediaType !== 'application/json'
            ? 400
            : 422;
    return answerWithoutRunning(deps, request, reply, () => reply.code(status).type(type).send(errorBody(operation.errors)));
  }
  const charge = await deps.limits.chargeOperation(caller, admitted, operation.cost);
  request.netgraph.limits = charge.state;
  if (!charge.allowed) {
    deps.onLimited?.('complexity');
    const { retryAt, state } = charge;
    return answerWithoutRunning(deps, request, reply, () => sendThrottled(reply, type, operation.cost, state, retryAt));
  }
  const deadline = request.netgraph.deadline;
  const outcome = await operation.run(deadline === undefined ? {} : { deadline });
  request.netgraph.statements += outcome.statements;
  const send = () => reply.code(200).type(type).send(outcome.body);
  // e.g. `mutation { __typename }`: nothing that ran looked at the key
  return outcome.keyChecked ? send() : answerWithoutRunning(deps, request, reply, send);
}

/** Answers a request that ran no statement; nothing confirmed the key is still active then, so ask once. */
async function answerWithoutRunning(
  deps: GraphQLRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  send: () => FastifyReply,
): Promise<FastifyReply> {
  const caller = request.netgraph.caller;
  request.netgraph.statements += 1;
  if (caller?.keyId != null && !(await deps.apiKeys.isActive(caller.keyId))) {
    deps.apiKeys.forget(caller.keyId);
    return sendUnauthorized(reply);
  }
  return send();
}

/** The body of a 429 for the request rate limit, as the Meter API sends it. */
export const TOO_MANY_REQUESTS_BODY = JSON.stringify({
  title: 'Too many requests',
  id: 'too_many_requests',
  detail: 'Too many requests',
  status: 429,
});

/** Sends the Meter-compatible 429 for a key over its request limit. */
function sendTooManyRequests(reply: FastifyReply, retryAt: number): FastifyReply {
  return reply.code(429).header('retry-after', httpDate(retryAt)).type(JSON_TYPE).send(TOO_MANY_REQUESTS_BODY);
}

/** Sends THROTTLED: the key's complexity budget does not hold this operation's cost yet. */
function sendThrottled(reply: FastifyReply, type: string, cost: number, state: LimitState, retryAt: number): FastifyReply {
  const remaining = wholePoints(state.budget.level);
  const retryAfterSeconds = secondsUntil(retryAt, state.now);
  return reply
    .code(429)
    .header('retry-after', httpDate(retryAt))
    .type(type)
    .send(
      errorBody([
        {
          message: `This operation costs ${cost} complexity points and the budget of this API key holds ${remaining}; retry after ${httpDate(retryAt)}, or send a cheaper operation.`,
          extensions: { code: 'THROTTLED', cost, remaining, retryAfterSeconds },
        },
      ]),
    );
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
