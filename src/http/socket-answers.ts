import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../kernel/errors.js';
import { answerForAppError } from './error-answer.js';

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request
 * (malformed HTTP, headers over 16 KiB, a request not received in time) in
 * the documented error shape, not Fastify's own.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // the client went away: there is no one to answer
  if (error.code === 'ECONNRESET' || !socket.writable) return;
  const appError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('HEADERS_TOO_LARGE', 'The request headers are larger than the limit of 16 KiB.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('REQUEST_TIMEOUT', 'The request was not received in time; send it again.')
        : new AppError('BAD_REQUEST', 'The request is not valid HTTP/1.1.');
  answerOnSocket(socket, appError);
}

/** Writes the whole answer to `error` (answerForAppError's) to a socket no server manages any more, and closes it. */
export function answerOnSocket(socket: Duplex, error: AppError): void {
  if (!socket.writable) return;
  const { status, headers, body } = answerForAppError(error);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Connection: close',
      ...Object.entries(headers).map(([name, value]) => `${titleCase(name)}: ${value}`),
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
}

/** `content-type` -> `Content-Type`: names are case-insensitive, and these raw answers have always been capitalised. */
function titleCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}
