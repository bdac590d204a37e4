import type { RequestLine } from '../observability/log.js';
import type { KeyRequest } from '../features/request-log/request-log.writer.js';
import type { RequestContext } from './request-context.js';

/** The longest User-Agent the per-key request log keeps; longer ones are cut. */
const USER_AGENT_MAX = 256;

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
    durationMs: roundedMs(facts.elapsedMs),
    keyId: caller?.keyUuid ?? undefined,
    company: caller?.companySlug,
    operationName: context?.operationName ?? undefined,
    sqlStatements: context?.statements ?? 0,
  };
}

/** A duration in ms as the log line and the request log give it: to the hundredth. */
function roundedMs(elapsedMs: number): number {
  return Math.round(elapsedMs * 100) / 100;
}

/**
 * The per-key request log's entry of a request (features/request-log), from
 * the same facts and context as its log line: undefined when the request
 * named no key netgraph has (none, a malformed or an unknown one, a
 * dashboard session). A refused key's request is the key's too (its
 * refusedKey). `at` is the request's arrival. The request id and User-Agent
 * come as arguments, not spread into a copy of `facts`: on Node 20 the copy
 * and the reads of its fields cost 2.8 µs a request, the entry alone 0.1 µs.
 */
export function keyRequest(facts: RequestFacts, requestId: string, userAgent: string | undefined, context: RequestContext | undefined): KeyRequest | undefined {
  if (context === undefined) return undefined;
  const keyId = context.caller?.keyId ?? context.refusedKey?.keyId;
  if (keyId === undefined || keyId === null) return undefined;
  return {
    at: Date.now() - facts.elapsedMs,
    keyId,
    requestId,
    method: facts.method,
    path: facts.path,
    operationName: context.operationName,
    rootFields: context.rootFields ?? [],
    status: facts.status,
    errorCodes: context.errorCodes ?? [],
    cost: context.cost ?? null,
    durationMs: roundedMs(facts.elapsedMs),
    statements: context.statements,
    clientAddress: facts.clientAddress ?? null,
    userAgent: userAgent === undefined || userAgent === '' ? null : userAgent.slice(0, USER_AGENT_MAX),
  };
}
