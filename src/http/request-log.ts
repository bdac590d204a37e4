import type { RequestLine } from '../observability/log.js';
import type { RequestContext } from './request-context.js';

/** What the server knows of a request besides its context, for its log line. */
export interface RequestFacts {
  /** Absent when the logger's own bindings carry it (a Fastify request's child logger). */
  readonly requestId?: string;
  readonly method: string;
  readonly path: string;
  readonly clientAddress: string | undefined;
  readonly status: number;
  /** From the request's arrival to its answer, unrounded. */
  readonly elapsedMs: number;
}

/**
 * The request log line of any route (docs/operations.md): what the request
 * was, and from its context who asked (the key's id and company, never the
 * key), which operation ran and how many SQL statements it took. Fastify's
 * routes (app.ts) and the bare GraphQL route (graphql/endpoint.ts) write it
 * through their own writers.
 */
export function requestLine(facts: RequestFacts, context: RequestContext | undefined): RequestLine {
  const caller = context?.caller;
  return {
    requestId: facts.requestId,
    method: facts.method,
    path: facts.path,
    clientAddress: facts.clientAddress,
    status: facts.status,
    durationMs: Math.round(facts.elapsedMs * 100) / 100,
    keyId: caller?.keyUuid ?? undefined,
    company: caller?.companySlug,
    operationName: context?.operationName ?? undefined,
    sqlStatements: context?.statements ?? 0,
  };
}
