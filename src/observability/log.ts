import { once } from 'node:events';
import pino from 'pino';
import type { Logger } from 'pino';
import type { LogLevel } from '../config.js';

/**
 * The log of a server process: JSON lines on stdout, written by pino through
 * its asynchronous destination (sonic-boom with `sync: false`), so no line
 * costs a system call on the event loop. Lines are gathered and handed to
 * sonic-boom together, HANDOVER_BYTES at a time or HANDOVER_DELAY_MS after
 * the first of them, whichever comes first: sonic-boom measures the byte
 * length of its whole pending buffer on every write it takes (a line cost
 * 3.6 µs of CPU against 1 µs batched, `node bench/log-line.mjs`), and each
 * of its writes is a trip through libuv's thread pool and back, which at one
 * line per request cost point lookups a quarter of their throughput on a
 * quiet machine (docs/benchmarks.md). Lines still pending must be written
 * before the process ends: close() on a graceful shutdown, flushSync() on a
 * crash.
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

/** How many bytes of lines are gathered before they are handed to sonic-boom (at the end of that turn of the event loop). */
const HANDOVER_BYTES = 16 * 1024;
/** How long a line may wait to be handed over when fewer than HANDOVER_BYTES are pending: a quiet server's lines still appear at once to a person. */
const HANDOVER_DELAY_MS = 50;

/**
 * A stream for pino that gathers lines and writes them to `destination` as
 * one string: at the end of the turn in which HANDOVER_BYTES are pending,
 * else HANDOVER_DELAY_MS after the first pending line.
 */
function batchLines(destination: { write(text: string): unknown }): { batcher: { write(line: string): void }; handOver(): void } {
  let pending: string[] = [];
  // string length, not bytes: a cheap bound that is exact for the ASCII of almost every line
  let pendingLength = 0;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const handOver = () => {
    if (timer !== undefined) clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    pendingLength = 0;
    destination.write(text);
  };
  const batcher = {
    write(line: string) {
      pending.push(line);
      pendingLength += line.length;
      // unref: a pending line does not keep the process alive; the exit hook writes it
      if (timer === undefined) timer = setTimeout(handOver, HANDOVER_DELAY_MS).unref();
      if (pendingLength >= HANDOVER_BYTES && immediate === undefined) immediate = setImmediate(handOver);
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
