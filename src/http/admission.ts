import type { KeyScope } from '../kernel/caller.js';
import type { ApiKeyService, AuthenticationNotes } from '../features/api-key/api-key.service.js';
import type { LimitDecision, LimitsService } from '../platform/limits/limits.service.js';
import type { Answer } from './answer.js';
import { bearerToken } from './bearer-token.js';
import { limitHeaders } from './limit-headers.js';
import type { WindowUnit } from './limit-headers.js';
import { UNAUTHORIZED, tooManyRequests } from './meter-answers.js';
import type { RequestContext } from './request-context.js';

/** A route's terms of admission. */
export interface AdmissionTerms {
  readonly apiKeys: ApiKeyService;
  /** The route's request window (and, for GraphQL, the complexity budget). */
  readonly limits: LimitsService;
  /** What the window counts, as the limit headers name it. */
  readonly unit: WindowUnit;
  /** The answer to a key of a scope the route does not serve; undefined for one it serves. */
  readonly refuseScope: (scope: KeyScope) => Answer | undefined;
  /**
   * Whether a key found in the authentication cache is confirmed against the
   * database at admission: for a route whose work runs no statement that
   * checks it (GraphQL's compiled reads check it in their own statement).
   */
  readonly confirmCachedKey: boolean;
  /** Told of every request the window refuses, for metrics. */
  readonly onLimited?: () => void;
}

/** How a route admits a request: the same steps, and the same answers, for every route with an API key. */
export interface Admission {
  /**
   * Before the body is read: the bearer key (401 for none, an unknown, a
   * revoked or an expired one, or one whose allowlist does not hold the
   * context's client address), then its scope (the route's refusal). Sets
   * the context's caller, and counts the lookups it ran in its statements.
   */
  admitKey(authorization: string | undefined, context: RequestContext): Promise<Answer | undefined>;
  /** Counts `units` against the key's window (a 429 past it); sets the context's limits. */
  countRequest(context: RequestContext, units?: number): Promise<Answer | undefined>;
  /** admitKey(), then countRequest() for one unit: a request whose size is known before its body. */
  admit(authorization: string | undefined, context: RequestContext): Promise<Answer | undefined>;
  /** The limit headers of an answer with `status` to an admitted request; undefined for none (before admission, a 401). */
  headers(context: RequestContext, status: number): Record<string, string> | undefined;
  /**
   * True while the context's key is still valid, asked of the database (one
   * statement, counted); a revoked or expired key is dropped from the cache. For an
   * answer that ran nothing that checked it.
   */
  keyStillValid(context: RequestContext): Promise<boolean>;
}

/** Creates a route's admission on its terms. */
export function createAdmission(terms: AdmissionTerms): Admission {
  const { apiKeys, limits, unit, refuseScope, confirmCachedKey, onLimited } = terms;

  /** The one validity check of a key the cache holds: one statement, counted; a revoked or expired key leaves the cache. */
  async function confirmKey(keyId: number | null, context: RequestContext): Promise<boolean> {
    context.statements += 1;
    if (keyId === null || (await apiKeys.isActive(keyId))) return true;
    apiKeys.forget(keyId);
    return false;
  }

  /** A refusal of a key netgraph has: noted on the context for the key's request log. */
  function refuse(context: RequestContext, key: { keyId: number | null; companyId: number } | undefined): Answer {
    if (key !== undefined && key.keyId !== null) context.refusedKey = { keyId: key.keyId, companyId: key.companyId };
    return UNAUTHORIZED;
  }

  async function admitKey(authorization: string | undefined, context: RequestContext): Promise<Answer | undefined> {
    const token = bearerToken(authorization);
    const lookups: AuthenticationNotes = { count: 0 };
    const caller = token === undefined ? undefined : await apiKeys.authenticate(token, lookups, context.clientAddress);
    context.statements += lookups.count;
    if (caller === undefined) return refuse(context, lookups.refused);
    // a cached key may have been revoked (or expired, or rotated out) since: that holds for the very next request
    if (confirmCachedKey && lookups.count === 0 && !(await confirmKey(caller.keyId, context))) return refuse(context, caller);
    context.caller = caller;
    return refuseScope(caller.scope);
  }

  /** The window's decision on the context: its state, and a 429 past the limit. */
  function windowAnswer(decision: LimitDecision, context: RequestContext): Answer | undefined {
    context.limits = decision.state;
    if (decision.allowed) return undefined;
    onLimited?.();
    return tooManyRequests(decision.retryAt);
  }

  async function countRequest(context: RequestContext, units = 1): Promise<Answer | undefined> {
    const caller = context.caller;
    if (caller === undefined) return UNAUTHORIZED;
    return windowAnswer(await limits.admitRequest(caller, units), context);
  }

  return {
    admitKey,
    countRequest,
    keyStillValid: (context) => confirmKey(context.caller?.keyId ?? null, context),
    async admit(authorization, context) {
      const refused = await admitKey(authorization, context);
      // admitKey() set the caller; counted before the body is parsed, so a flood over the limit costs no parsing
      if (refused !== undefined || context.caller === undefined) return refused ?? UNAUTHORIZED;
      return windowAnswer(await limits.admitRequest(context.caller, 1), context);
    },
    headers(context, status) {
      const state = context.limits;
      return state === undefined || status === 401 ? undefined : limitHeaders(state, limits.policies, unit);
    },
  };
}
