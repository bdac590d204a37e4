import { ERROR_CODES } from '../kernel/errors.js';
import type { ErrorCode } from '../kernel/errors.js';
import { httpDate } from '../platform/limits/limits.headers.js';
import { JSON_TYPE } from './answer.js';
import type { Answer } from './answer.js';

/** The 401 of a request without a valid API key, as the Meter API sends it. */
export const UNAUTHORIZED: Answer = {
  status: ERROR_CODES.UNAUTHENTICATED,
  headers: { 'www-authenticate': 'Bearer', 'content-type': JSON_TYPE },
  body: problemBody('UNAUTHENTICATED', 'Unauthorized. Please include your API credentials', 'unauthorized'),
  errorCodes: ['UNAUTHENTICATED'],
};

const TOO_MANY_REQUESTS_CODES: readonly ErrorCode[] = ['TOO_MANY_REQUESTS'];
const TOO_MANY_REQUESTS_BODY = problemBody('TOO_MANY_REQUESTS', 'Too many requests', 'too_many_requests', 'Too many requests');

/** The 429 of a key over its request limit, as the Meter API sends it; `retryAt` is in ms since the epoch. */
export function tooManyRequests(retryAt: number): Answer {
  return { status: ERROR_CODES.TOO_MANY_REQUESTS, headers: { 'Retry-After': httpDate(retryAt), 'content-type': JSON_TYPE }, body: TOO_MANY_REQUESTS_BODY, errorCodes: TOO_MANY_REQUESTS_CODES };
}

/** The 404 of a path no route serves, in the Meter API's problem shape; `detail` says what the caller should do. */
export function notFound(detail: string): Answer {
  return { status: ERROR_CODES.NOT_FOUND, headers: { 'content-type': JSON_TYPE }, body: problemBody('NOT_FOUND', 'Not found', 'not_found', detail), errorCodes: ['NOT_FOUND'] };
}

/** A problem body as the Meter API writes it: title, id, detail when there is one, and the status of `code`. */
function problemBody(code: ErrorCode, title: string, id: string, detail?: string): string {
  const status = ERROR_CODES[code];
  return JSON.stringify(detail === undefined ? { title, id, status } : { title, id, detail, status });
}
