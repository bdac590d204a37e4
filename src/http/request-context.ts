import type { Caller } from '../kernel/caller.js';
import type { LimitState } from '../platform/limits/limits.headers.js';

/** What the request log line reports about a request, and what the later steps of its answer need. */
export interface RequestContext {
  caller?: Caller;
  operationName: string | null;
  statements: number;
  /** The client's address (http/client-address.ts: X-Forwarded-For's under TRUST_PROXY); a key's allowlist is checked against it. */
  clientAddress?: string | undefined;
  /** The caller's limits as this response reports them. */
  limits?: LimitState;
  /** When the request times out, as a performance.now() time. */
  deadline?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    netgraph: RequestContext;
  }
}
