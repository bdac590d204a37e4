import type { FastifyBaseLogger, FastifyError } from 'fastify';
import { ERROR_CODES, INTERNAL, isAppError } from '../kernel/errors.js';
import type { AppError } from '../kernel/errors.js';
import { JSON_TYPE, errorAnswer } from './answer.js';
import type { Answer } from './answer.js';
import { fromFastifyError } from './body-errors.js';
import { UNAUTHORIZED } from './meter-answers.js';

/** Where answerForError logs an unexpected error, and how it classifies the store's errors. */
export interface ErrorContext {
  readonly requestId: string;
  readonly log: FastifyBaseLogger;
  /** The store's mapping of driver errors (database unavailable, statement timeout) to AppErrors. */
  readonly classify: (error: unknown) => unknown;
}

/**
 * The answer to a deliberate error that ends a request: the status its code
 * has in the registry (errors.ts), the documented body, `Allow` on a 405 and
 * `Retry-After` on a 503; UNAUTHENTICATED is the Meter API's 401.
 */
export function answerForAppError(error: AppError): Answer {
  if (error.code === 'UNAUTHENTICATED') return UNAUTHORIZED;
  const headers = {
    ...(error.code === 'METHOD_NOT_ALLOWED' ? { allow: 'POST' } : {}),
    'content-type': JSON_TYPE,
    ...(error.code === 'SERVICE_UNAVAILABLE' ? { 'Retry-After': '1' } : {}),
  };
  return errorAnswer(error.status, headers, [{ message: error.message, extensions: { code: error.code, ...publicDetails(error) } }]);
}

/**
 * The answer to an error a request ended with, for every route of the API:
 * AppErrors and Fastify's own client errors as answerForAppError gives them,
 * anything else a masked 500 (logged with the request id, which the body repeats).
 */
export function answerForError(rawError: unknown, context: ErrorContext): Answer {
  const error = context.classify(rawError);
  // a thrown non-object (`throw undefined`) is as unexpected as any other error
  const appError = isAppError(error) ? error : typeof rawError === 'object' && rawError !== null ? fromFastifyError(rawError as FastifyError) : undefined;
  if (appError) return answerForAppError(appError);
  const { requestId } = context;
  context.log.error({ err: rawError, requestId }, 'unexpected error');
  return errorAnswer(ERROR_CODES.INTERNAL_SERVER_ERROR, { 'content-type': JSON_TYPE }, [{ message: INTERNAL.message, extensions: { code: INTERNAL.code, requestId } }]);
}

/** How often, at most, a process logs that it answers requests 503 for the database. */
const UNAVAILABLE_WARNING_INTERVAL_MS = 10_000;

/**
 * `classify` (the store's mapping of driver errors), logging at warn when it
 * turns a driver error into SERVICE_UNAVAILABLE (the database is down,
 * refuses connections, is busy, or keeps aborting a write): at the first such
 * answer, then at most once every UNAVAILABLE_WARNING_INTERVAL_MS with how
 * many requests were answered so since the last line. An operator at
 * LOG_LEVEL=warn sees an outage, and a busy server does not write a line per
 * request of it.
 */
export function warnWhenUnavailable(
  classify: (error: unknown) => unknown,
  log: Pick<FastifyBaseLogger, 'warn'>,
  now: () => number = () => performance.now(),
): (error: unknown) => unknown {
  let loggedAt: number | undefined;
  let answered = 0;
  return (error) => {
    const classified = classify(error);
    if (classified === error || !isAppError(classified, 'SERVICE_UNAVAILABLE')) return classified;
    answered += 1;
    const at = now();
    if (loggedAt === undefined || at - loggedAt >= UNAVAILABLE_WARNING_INTERVAL_MS) {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      log.warn(
        { reason: classified.message, cause: { code, message }, answered503: answered },
        'database unavailable: requests are answered 503 with Retry-After: 1',
      );
      loggedAt = at;
      answered = 0;
    }
    return classified;
  };
}

function publicDetails(error: AppError): Record<string, unknown> {
  const { field, ...rest } = error.details;
  return field === undefined ? rest : { field, ...rest };
}
