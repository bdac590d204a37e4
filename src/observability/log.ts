import { once } from 'node:events';
import pino from 'pino';
import type { Logger } from 'pino';
import type { LogLevel } from '../config.js';

/**
 * The log of a server process: JSON lines on stdout, written by pino through
 * its asynchronous destination (sonic-boom with `sync: false`), so no line
 * costs a system call on the event loop. The lines of one turn of the event
 * loop are handed to sonic-boom together: sonic-boom measures the byte length
 * of its whole pending buffer on every write it takes, which made a line cost
 * 3.6 µs of CPU against 1 µs batched (`node bench/log-line.mjs`,
 * docs/benchmarks.md). Lines still pending must be written before the process
 * ends: close() on a graceful shutdown, flushSync() on a crash.
 */
export interface ProcessLog {
  readonly logger: Logger;
  /** Writes every pending line, then stops logging (later lines are dropped): the last step of a graceful shutdown. */
  close(): Promise<void>;
  /** Writes every pending line before returning: for a crash, when the event loop will not run again. */
  flushSync(): void;
}

/** Creates the process's log at `level`, on file descriptor `fd` (stdout). */
export function createProcessLog(level: LogLevel, fd = 1): ProcessLog {
  // minLength 0: a batch is written as soon as no write is running, so a quiet server's lines appear at once
  const destination = pino.destination({ dest: fd, sync: false, minLength: 0 });
  const { batcher, handOver } = batchLines(destination);
  const logger = pino({ level }, batcher);
  let closed: Promise<void> | undefined;
  const flushSync = () => {
    // once close() began, end() writes what is left (and flushSync would throw on a closed destination)
    if (closed !== undefined) return;
    handOver();
    destination.flushSync();
  };
  // an exit by process.exit() anywhere: pino's own exit hook flushes sonic-boom, not the lines of this turn
  process.once('exit', flushSync);
  return {
    logger,
    flushSync,
    close() {
      closed ??= (async () => {
        process.off('exit', flushSync);
        // a line logged after end() would throw inside sonic-boom: nothing is logged from here on
        logger.level = 'silent';
        handOver();
        const finished = once(destination, 'close');
        destination.end();
        await finished;
      })();
      return closed;
    },
  };
}

/** A stream for pino that gathers the lines of one turn of the event loop and writes them to `destination` as one string. */
function batchLines(destination: { write(text: string): unknown }): { batcher: { write(line: string): void }; handOver(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const handOver = () => {
    scheduled = false;
    if (pending.length === 0) return;
    destination.write(pending.join(''));
    pending = [];
  };
  const batcher = {
    write(line: string) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(handOver);
      }
    },
  };
  return { batcher, handOver };
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
