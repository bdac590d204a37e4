import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The most bytes of a body read and thrown away after an early answer: over
 * twelve times the largest body limit (5 MiB, reports), so a client that sent
 * a body of any size it plausibly meant still reads its answer, and about half a
 * second of a 1 Gbit/s link, so a fast client cannot make a server read
 * without end. nginx bounds its lingering close by time only.
 */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;
/** The longest a connection lingers after its answer, however fast the body comes (nginx's `lingering_time`). */
export const LINGER_TIME_MS = 30_000;
/** The longest wait for more of the body while lingering (nginx's `lingering_timeout`). */
export const LINGER_IDLE_MS = 5_000;

/** node:http closes a `Connection: close` connection with this (undocumented) method once the answer is written. */
type ClosableSocket = Socket & { destroySoon?: () => void };

/**
 * Call just before an answer's headers are written. When the request's body
 * is still arriving (an answer from its headers: 401, 403, 413 from
 * Content-Length, or a body cut off at its limit), the answer gets
 * `Connection: close`, and once it is written the connection is closed only
 * after the rest of the body has been read and thrown away, within
 * LINGER_MAX_BYTES, LINGER_TIME_MS and LINGER_IDLE_MS. Closing at once would
 * leave unread bytes in the kernel, which then answers the client's next
 * segment with a reset: a client still sending gets EPIPE or ECONNRESET,
 * often before it has read the answer, and cannot tell "too large" from a
 * crash. Nothing read is kept. Returns whether the connection lingers.
 */
export function lingerOnUnreadBody(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.complete || response.headersSent) return false;
  const socket = request.socket as ClosableSocket;
  if (socket.destroyed || typeof socket.destroySoon !== 'function') return false;
  response.setHeader('connection', 'close');
  socket.destroySoon = discardBody(request, socket);
  return true;
}

/**
 * Reads the rest of `request`'s body into nothing from now on; returns what
 * closes the connection once the answer is written: the end of the writing
 * side at once (the client reads the answer, then the end), the whole
 * connection when the body has ended, the client has ended its side, or a
 * bound is passed.
 */
function discardBody(request: IncomingMessage, socket: Socket): () => void {
  let discarded = 0;
  let answered = false;
  let bodyDone = false;
  const close = () => {
    clearTimeout(idle);
    clearTimeout(deadline);
    socket.destroy();
  };
  // a bound passed: close now, whether or not the answer is out (a client this slow or this insistent gets no more)
  const idle = setTimeout(() => {
    // after the event loop stalled (a busy process), this timer runs before the data that waited in the
    // meantime is read: look again once the loop has read it, and close only when nothing came
    const seen = discarded;
    setImmediate(() => (discarded === seen ? close() : idle.refresh()));
  }, LINGER_IDLE_MS);
  const deadline = setTimeout(close, LINGER_TIME_MS);
  const onBodyEnd = () => {
    bodyDone = true;
    if (!answered) return;
    // what was written is on its way: destroy() would drop what is still queued
    if (socket.writableFinished) close();
    else socket.once('finish', close);
  };
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) close();
    else idle.refresh();
  });
  // a body parser that gave up may have paused the stream
  request.resume();
  request.once('end', onBodyEnd);
  socket.once('end', onBodyEnd);
  socket.once('close', close);
  return () => {
    answered = true;
    socket.end();
    if (bodyDone) onBodyEnd();
  };
}
