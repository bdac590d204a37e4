import type { FastifyReply } from 'fastify';
import type { ErrorCode } from '../kernel/errors.js';

/** The content type of every JSON answer but a GraphQL result the client asked as application/graphql-response+json. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A whole HTTP response, whichever server sends it (a Fastify route or the bare node:http endpoint). */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends an answer through Fastify. */
export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
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
