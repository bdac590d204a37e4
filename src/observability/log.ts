import { once } from 'node:events';
import pino from 'pino';
import type { Logger } from 'pino';
import type { LogLevel } from '../config.js';

/**
 * The log of a server process: JSON lines on stdout, written by pino through
 * its asynchronous destination (sonic-boom with `sync: false`). A log call
 * only appends to a buffer; the buffer goes to the file descriptor in the
 * background, one write for whatever gathered while the last write ran, so a
 * request's line costs no system call on the event loop (docs/benchmarks.md).
 * Lines still buffered must be written before the process ends: close() on a
 * graceful shutdown, flushSync() on a crash.
 */
export interface ProcessLog {
  readonly logger: Logger;
  /** Writes every buffered line, then stops logging (later lines are dropped): the last step of a graceful shutdown. */
  close(): Promise<void>;
  /** Writes every buffered line before returning: for a crash, when the event loop will not run again. */
  flushSync(): void;
}

/** Creates the process's log at `level`, on file descriptor `fd` (stdout). */
export function createProcessLog(level: LogLevel, fd = 1): ProcessLog {
  // minLength 0: a line is written as soon as no write is running, so a quiet server's lines appear at once
  const destination = pino.destination({ dest: fd, sync: false, minLength: 0 });
  const logger = pino({ level }, destination);
  let closed: Promise<void> | undefined;
  return {
    logger,
    close() {
      closed ??= (async () => {
        // a line logged after end() would throw inside sonic-boom: nothing is logged from here on
        logger.level = 'silent';
        const finished = once(destination, 'close');
        destination.end();
        await finished;
      })();
      return closed;
    },
    flushSync() {
      // once close() began, end() writes what is left (and flushSync would throw on a closed destination)
      if (closed === undefined) destination.flushSync();
    },
  };
}

/**
 * Makes an uncaught exception (or an unhandled rejection, which Node turns
 * into one) end the process with exit code 1 after logging it at `fatal` and
 * writing every buffered line synchronously: nothing logged before the crash
 * is lost. Returns how to remove the handler.
 */
export function exitOnCrash(log: ProcessLog, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const crash = (error: Error) => {
    try {
      log.logger.fatal({ err: error }, 'uncaught exception; exiting');
      log.flushSync();
    } finally {
      exit(1);
    }
  };
  process.on('uncaughtException', crash);
  return () => process.off('uncaughtException', crash);
}
