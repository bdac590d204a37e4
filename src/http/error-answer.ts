import type { FastifyBaseLogger, FastifyError } from 'fastify';
import { ERROR_CODES, isAppError } from '../errors.js';
import type { AppError } from '../errors.js';
import { JSON_TYPE, errorBody } from './answer.js';
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
  return {
    status: error.status,
    headers: {
      ...(error.code === 'METHOD_NOT_ALLOWED' ? { allow: 'POST' } : {}),
      'content-type': JSON_TYPE,
      ...(error.code === 'SERVICE_UNAVAILABLE' ? { 'retry-after': '1' } : {}),
    },
    body: errorBody([{ message: error.message, extensions: { code: error.code, ...publicDetails(error) } }]),
  };
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
  return {
    status: ERROR_CODES.INTERNAL_SERVER_ERROR,
    headers: { 'content-type': JSON_TYPE },
    body: errorBody([{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } }]),
  };
}

function publicDetails(error: AppError): Record<string, unknown> {
  const { field, ...rest } = error.details;
  return field === undefined ? rest : { field, ...rest };
}
