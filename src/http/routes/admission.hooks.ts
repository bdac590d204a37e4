import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Admission } from '../admission.js';
import type { Answer } from '../answer.js';
import { sendAnswer } from '../answer.js';
import type { RequestContext } from '../request-context.js';

/** How a route admits a request's key (Admission's admit or admitKey, or GraphQL's own step around them). */
type Admit = (authorization: string | undefined, context: RequestContext) => Promise<Answer | undefined>;

/** The onRequest hook of a route with an API key: runs `admit` before the body is read and sends its refusal. */
export function admitOnRequest(admit: Admit) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const refused = await admit(request.headers.authorization, request.netgraph);
    return refused === undefined ? undefined : sendAnswer(reply, refused);
  };
}

/** The onSend hook of a route with an API key: adds the admitted request's limit headers to whatever it answers. */
export function limitHeadersOnSend(admission: Admission) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const headers = admission.headers(request.netgraph, reply.statusCode);
    if (headers !== undefined) reply.headers(headers);
    return payload;
  };
}
