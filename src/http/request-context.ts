import type { Caller } from '../kernel/caller.js';
import type { ErrorCode } from '../kernel/errors.js';
import type { LimitState } from '../platform/limits/limits.headers.js';

/** What the request log line reports about a request, and what the later steps of its answer need. */
export interface RequestContext {
  caller?: Caller;
  /**
   * The key a refused request named, when it is a key netgraph has (revoked,
   * expired, or from an address outside its allowlist): its refusal goes to
   * that key's request log. Never the caller: nothing runs with it.
   */
  refusedKey?: RefusedKey;
  operationName: string | null;
  statements: number;
  /** The client's address (http/client-address.ts: X-Forwarded-For's under TRUST_PROXY); a key's allowlist is checked against it. */
  clientAddress?: string | undefined;
  /** The caller's limits as this response reports them. */
  limits?: LimitState;
  /** When the request times out, as a performance.now() time. */
  deadline?: number;
  /** The root fields the operation names (GraphQL), for the per-key request log. */
  rootFields?: readonly string[];
  /** The `extensions.code` of each error of the answer (Answer.errorCodes). */
  errorCodes?: readonly ErrorCode[];
  /** What the operation was charged once it ran, its actual cost (docs/limits.md); unset when nothing was charged. */
  cost?: number;
}

/** Which key a refused request named: its row id and its company. */
export interface RefusedKey {
  readonly keyId: number;
  readonly companyId: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    netgraph: RequestContext;
  }
}
