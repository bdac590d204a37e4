import type { FastifyReply } from 'fastify';
import type { ErrorCode } from '../kernel/errors.js';
import type { RequestContext } from './request-context.js';

/** The content type of every JSON answer but a GraphQL result the client asked as application/graphql-response+json. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A whole HTTP response, whichever server sends it (a Fastify route or the bare node:http endpoint). */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The `extensions.code` of each error the body holds (the per-key request log); absent for none. */
  readonly errorCodes?: readonly ErrorCode[];
}

/** Sends an answer through Fastify; its error codes go to the request's context, for the request log. */
export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  noteErrorCodes((reply.request as { netgraph?: RequestContext | null }).netgraph, answer);
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

/** Keeps the error codes of the answer a request gets on its context (the per-key request log reads them there). */
export function noteErrorCodes(context: RequestContext | null | undefined, answer: Answer): void {
  if (context && answer.errorCodes !== undefined) context.errorCodes = answer.errorCodes;
}

/** An answer whose body is errorBody(errors): its codes noted beside it. */
export function errorAnswer(status: number, headers: Readonly<Record<string, string>>, errors: readonly ErrorEntry[]): Answer {
  return { status, headers, body: errorBody(errors), errorCodes: errors.map((error) => error.extensions.code) };
}

/** One error of an error body as docs/errors.md shows it; graphql/wire.ts's WireError is one. */
export interface ErrorEntry {
  readonly message: string;
  readonly extensions: { readonly code: ErrorCode; readonly [key: string]: unknown };
}

/** The body of an error that ends the request, shaped as a GraphQL response: `{"errors":[…],"data":null}`. */
export function errorBody(errors: readonly ErrorEntry[]): string {
  return `{"errors":${JSON.stringify(errors)},"data":null}`;
}
