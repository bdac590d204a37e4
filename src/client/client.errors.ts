/**
 * The codes netgraph answers with as `extensions.code` (docs/errors.md has one
 * entry per code; a test keeps this list equal to the server's registry), and
 * `HTTP_ERROR`, the client's own, for an answer without a GraphQL body (a
 * proxy's 502 page, say).
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'CURSOR_EXPIRED',
  'GRAPHQL_VALIDATION_FAILED',
  'COMPLEXITY_LIMIT_EXCEEDED',
  'UNAUTHENTICATED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'TOO_MANY_REQUESTS',
  'THROTTLED',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
] as const;

/** A code of netgraph's registry. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What every error's `extensions` holds: its code, and the facts some codes add. */
export interface ErrorExtensions {
  /** A registry code, HTTP_ERROR, or a code this client does not know yet (a newer server's). */
  readonly code: ErrorCode | 'HTTP_ERROR' | (string & {});
  /** The input field to fix, in a mutation's error, e.g. `input.vlans[1].vlanID`. */
  readonly field?: string;
  /** The argument of the wrong format. */
  readonly argument?: string;
  /** THROTTLED: the operation's requested cost; COMPLEXITY_LIMIT_EXCEEDED: its cost. */
  readonly cost?: number;
  /** THROTTLED: the points left in the key's budget. */
  readonly remaining?: number;
  /** THROTTLED: whole seconds until the budget holds the cost again. */
  readonly retryAfterSeconds?: number;
  /** INTERNAL_SERVER_ERROR: the id of the server's log line. */
  readonly requestId?: string;
  /** HTTP_ERROR: the answer's status. */
  readonly status?: number;
  readonly [key: string]: unknown;
}

/** A GraphQL error as a value: what went wrong, where (`path`), and its code. */
export interface GraphQLErrorValue {
  readonly message: string;
  /** The response key path of the field that failed, e.g. `['createNetwork']`; absent for request errors. */
  readonly path?: readonly (string | number)[];
  readonly locations?: readonly { readonly line: number; readonly column: number }[];
  readonly extensions: ErrorExtensions;
}

/** Thrown by `requireData()` and by the pagers for an answer with errors; `errors` are its typed errors. */
export class NetgraphRequestError extends Error {
  readonly errors: readonly GraphQLErrorValue[];
  readonly status: number;

  constructor(errors: readonly GraphQLErrorValue[], status: number) {
    super(`netgraph: HTTP ${status}: ${errors.map((e) => `${e.extensions.code}: ${e.message}${e.path ? ` (at ${e.path.join('.')})` : ''}`).join('; ')}`);
    this.name = 'NetgraphRequestError';
    this.errors = errors;
    this.status = status;
  }

  /** True when one of the errors has one of `codes`. */
  has(...codes: ErrorExtensions['code'][]): boolean {
    return this.errors.some((e) => codes.includes(e.extensions.code));
  }
}

/** Thrown when no answer came (the network failed or the attempt timed out), after the retries allowed. */
export class NetgraphNetworkError extends Error {
  readonly attempts: number;

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.name = 'NetgraphNetworkError';
    this.attempts = attempts;
  }
}

/**
 * The errors of an answer's body: a GraphQL body's `errors`, or a Meter
 * problem body (`{title, id, detail, status}`, the 401 and the request limit's
 * 429) as one error of the code its id names; anything else is HTTP_ERROR.
 */
export function errorsOfBody(body: unknown, status: number): GraphQLErrorValue[] {
  if (isRecord(body) && Array.isArray(body.errors)) return body.errors.map((error) => toErrorValue(error, status));
  if (isRecord(body) && typeof body.id === 'string' && typeof body.title === 'string') {
    const code = PROBLEM_CODES[body.id] ?? body.id.toUpperCase();
    return [{ message: typeof body.detail === 'string' ? body.detail : body.title, extensions: { code, status } }];
  }
  return status >= 400 ? [{ message: `HTTP ${status} without a GraphQL answer`, extensions: { code: 'HTTP_ERROR', status } }] : [];
}

/** The registry code of each Meter problem body's id (src/http/meter-answers.ts). */
const PROBLEM_CODES: Readonly<Record<string, ErrorCode>> = { unauthorized: 'UNAUTHENTICATED', too_many_requests: 'TOO_MANY_REQUESTS', not_found: 'NOT_FOUND' };

function toErrorValue(error: unknown, status: number): GraphQLErrorValue {
  if (!isRecord(error)) return { message: String(error), extensions: { code: 'HTTP_ERROR', status } };
  const extensions = isRecord(error.extensions) ? error.extensions : {};
  const code = typeof extensions.code === 'string' ? extensions.code : 'HTTP_ERROR';
  return {
    ...(error as object),
    message: typeof error.message === 'string' ? error.message : '',
    extensions: { ...extensions, code },
  } as GraphQLErrorValue;
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
