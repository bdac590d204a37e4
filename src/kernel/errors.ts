/**
 * The one registry of error codes netgraph answers with. Each code maps once to
 * an HTTP status, the only table of them: the status of a response whose error
 * ends the whole request (a field error leaves its response a 200). Each code
 * is what clients see as `extensions.code`. docs/errors.md has one entry per code.
 */
export const ERROR_CODES = {
  BAD_REQUEST: 400,
  BAD_USER_INPUT: 400,
  // the change feed's cursor names a change past its retention (docs/changes.md)
  CURSOR_EXPIRED: 400,
  GRAPHQL_VALIDATION_FAILED: 422,
  COMPLEXITY_LIMIT_EXCEEDED: 422,
  UNAUTHENTICATED: 401,
  // almost always a field error, in a 200; ending a request (a dashboard form, say) it is a bad request
  UNAUTHORIZED: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  TOO_MANY_REQUESTS: 429,
  THROTTLED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Extra, safe-to-show facts about an error, e.g. the offending argument or field. */
export interface ErrorDetails {
  readonly field?: string;
  readonly [key: string]: unknown;
}

/**
 * A deliberate error: its message is written for the caller and is shown as is.
 * Anything thrown that is not an AppError is masked as INTERNAL_SERVER_ERROR.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  /** The HTTP status this error carries when it ends the whole request. */
  get status(): number {
    return ERROR_CODES[this.code];
  }
}

/** True when `error` is an AppError, optionally of one of the given codes. */
export function isAppError(error: unknown, ...codes: ErrorCode[]): error is AppError {
  return error instanceof AppError && (codes.length === 0 || codes.includes(error.code));
}

/**
 * An error that more than one place raises, made in one place: its code (and
 * so its status) with its message, as fastify's lib/errors.js makes each of
 * its errors once. `create()` makes a new AppError of it.
 */
export interface KnownError {
  readonly code: ErrorCode;
  readonly message: string;
  create(details?: ErrorDetails): AppError;
}

function knownError(code: ErrorCode, message: string): KnownError {
  return { code, message, create: (details) => new AppError(code, message, details) };
}

/** A key that authenticated, found revoked (or gone) by the statement or transaction that checked it. */
export const KEY_NOT_VALID = knownError('UNAUTHENTICATED', 'The API key is not valid.');
/** A request without the JSON body every API route takes. */
export const NOT_JSON = knownError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
/** Anything that is not an AppError: the one message a caller sees of it (the details go to the log, under the request id). */
export const INTERNAL = knownError('INTERNAL_SERVER_ERROR', 'Internal server error');
/** A dashboard address naming a network that is not the user's company's (or does not exist: the same answer). */
export const NETWORK_NOT_FOUND = knownError('NOT_FOUND', 'There is no network at this address in your company.');
/** A dashboard address naming an API key that is not the user's company's (or does not exist: the same answer). */
export const API_KEY_NOT_FOUND = knownError('NOT_FOUND', 'There is no such API key in your company.');

/**
 * An internal invariant was broken. The tag is unique per throw site so one
 * grep finds it; the caller sees only INTERNAL_SERVER_ERROR.
 */
export function invariant(condition: unknown, tag: string): asserts condition {
  if (!condition) throw new Error(`invariant failed: ${tag}`);
}
