import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ApiKeyService } from '../modules/api-key/api-key.service.js';
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
 * the published schema. The API key is checked in onRequest, before the body
 * is read or parsed, so an unauthenticated flood costs a header check and at
 * most one indexed lookup.
 */
export function registerGraphQLRoutes(
  app: FastifyInstance,
  deps: { executor: Executor; apiKeys: ApiKeyService; schemaText: string },
): void {
  const { executor, apiKeys, schemaText } = deps;

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
      const token = bearerToken(request.headers.authorization);
      const lookups = { count: 0 };
      const caller = token === undefined ? undefined : await apiKeys.authenticate(token, lookups);
      request.netgraph.statements += lookups.count;
      if (caller === undefined) return sendUnauthorized(reply);
      request.netgraph.caller = caller;
      return undefined;
    },
    handler: async (request, reply) => {
      const mediaType = negotiate(request.headers.accept);
      if (mediaType === undefined) {
        throw new AppError(
          'NOT_ACCEPTABLE',
          'Accept must allow application/json or application/graphql-response+json.',
        );
      }
      const caller = request.netgraph.caller;
      if (!caller) throw new AppError('UNAUTHENTICATED', 'No API key.');
      const graphqlRequest = readRequestBody(request.body);
      const outcome = await executor.execute(graphqlRequest, caller, {
        requestId: request.id,
        onUnexpectedError: (error) => request.log.error({ err: error, requestId: request.id }, 'unexpected error in a mutation'),
      });
      request.netgraph.operationName = outcome.operationName;
      const type = mediaType === 'application/json' ? JSON_TYPE : GRAPHQL_RESPONSE_TYPE;

      if (outcome.kind === 'executed') request.netgraph.statements += outcome.statements;
      if (outcome.kind === 'executed' && outcome.keyChecked) return reply.code(200).type(type).send(outcome.body);
      // nothing that ran confirmed the key is still active: ask once
      request.netgraph.statements += 1;
      if (caller.keyId !== null && !(await apiKeys.isActive(caller.keyId))) {
        apiKeys.forget(caller.keyId);
        return sendUnauthorized(reply);
      }
      if (outcome.kind === 'executed') return reply.code(200).type(type).send(outcome.body);
      const status =
        outcome.phase === 'forbidden'
          ? 403
          : outcome.phase === 'request'
            ? 400
            : mediaType === 'application/graphql-response+json'
              ? 400
              : 422;
      return reply.code(status).type(type).send(errorBody(outcome.errors));
    },
  });
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

/** What the request log line reports about a request. */
export interface RequestContext {
  caller?: import('../modules/api-key/api-key.service.js').Caller;
  operationName: string | null;
  statements: number;
}

export type { FastifyRequest };
