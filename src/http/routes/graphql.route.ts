import type { FastifyInstance } from 'fastify';
import { AppError } from '../../kernel/errors.js';
import { sendAnswer } from '../answer.js';
import { answerForAppError } from '../error-answer.js';
import { admit, answerGraphQL } from './graphql.pipeline.js';
import type { GraphQLRouteDeps } from './graphql.pipeline.js';
import { admitOnRequest, limitHeadersOnSend } from './admission.hooks.js';

/** Where the GraphQL endpoint answers. */
export const GRAPHQL_PATH = '/api/v1/graphql';
/** Where the published schema is served, as SDL text. */
export const SCHEMA_PATH = '/api/v1/schema.graphql';

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
  const { admission, schemaText } = deps;

  app.get(SCHEMA_PATH, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(schemaText));

  app.route({
    method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: GRAPHQL_PATH,
    exposeHeadRoute: false,
    handler: async (request, reply) =>
      sendAnswer(reply, answerForAppError(new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here: send the GraphQL request with POST.`))),
  });

  app.route({
    method: 'POST',
    url: GRAPHQL_PATH,
    onRequest: admitOnRequest((authorization, context) => admit(deps, authorization, context)),
    onSend: limitHeadersOnSend(admission),
    handler: async (request, reply) =>
      sendAnswer(
        reply,
        await answerGraphQL(deps, request.netgraph, { accept: request.headers.accept, body: request.body, requestId: request.id, log: request.log }),
      ),
  });
}
