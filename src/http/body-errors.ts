import type { FastifyError } from 'fastify';
import { AppError, NOT_JSON } from '../kernel/errors.js';

/** Request bodies up to this size are read; larger ones get 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Fastify's own client errors (body parsing, size, media type) as AppErrors,
 * undefined for anything else; the bare endpoint raises the same errors.
 */
export function fromFastifyError(error: FastifyError): AppError | undefined {
  const status = error.statusCode ?? 500;
  if (status >= 500) return undefined;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${BODY_LIMIT_BYTES} bytes (1 MiB).`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return NOT_JSON.create();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The request body is empty: send a JSON object with a "query" string.');
    default:
      if (status === 415) return NOT_JSON.create();
      if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
      return new AppError('BAD_REQUEST', `The request body is not valid JSON: ${error.message}`);
  }
}
